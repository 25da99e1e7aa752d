// `aip emulator --demo`: something to look around with before creating anything. On a first start (an
// empty state), the `local/demo` project gets a trained model with a finished RL job (its events, and a
// checkpoint with metrics per step) and a few conversations as GenAI spans (an agent's turns, each a
// chat and a tool call), so that every command has something to show.

import { EMULATOR_DEFAULT_TEAM } from '../settings/local-platform.js';
import {
  buildSpan,
  intAttr,
  newSpanId,
  providerAttrs,
  SpanKind,
  spansRequest,
  stringAttr,
  traceFor,
} from '../traces/make/span.js';
import { encodeRequest, type PbSpan } from '../traces/otlp/otlp.js';
import { scanTraceRequest } from '../traces/otlp/scan.js';
import { routeParts } from './routes/traces.js';
import type { EmulatorState } from './state.js';
import type { EmulatedJob } from './store/jobs.js';
import type { EmulatedModel } from './store/models.js';

export const DEMO_PROJECT = 'demo';
export const DEMO_MODEL = 'demo-agent';
const DEMO_STEPS = 8;

/** Three turns of a conversation with the demo agent: invoke_agent over a chat and a tool call each. */
function conversationSpans(now: bigint): PbSpan[] {
  const spans: PbSpan[] = [];
  const conversation = stringAttr('gen_ai.conversation.id', 'demo-conversation-1');
  const questions = ['What is the weather in Paris?', 'And tomorrow?', 'Thanks!'];
  questions.forEach((_question, turn) => {
    const start = now - BigInt((questions.length - turn) * 60) * 1_000_000_000n;
    const context = traceFor(undefined);
    const agentId = newSpanId();
    const ms = (n: number) => start + BigInt(n) * 1_000_000n;
    const agent = { ...context, spanId: agentId };
    spans.push(
      buildSpan({
        name: `invoke_agent ${DEMO_MODEL}`,
        kind: SpanKind.internal,
        context,
        spanId: agentId,
        start,
        end: ms(900),
        attributes: [
          stringAttr('gen_ai.operation.name', 'invoke_agent'),
          ...providerAttrs(),
          stringAttr('gen_ai.agent.name', DEMO_MODEL),
          conversation,
        ],
      }),
      buildSpan({
        name: `chat wandb-artifact:///${EMULATOR_DEFAULT_TEAM}/${DEMO_PROJECT}/${DEMO_MODEL}:step${DEMO_STEPS}`,
        kind: SpanKind.client,
        context: agent,
        spanId: newSpanId(),
        start: ms(10),
        end: ms(600),
        attributes: [
          stringAttr('gen_ai.operation.name', 'chat'),
          ...providerAttrs(),
          conversation,
          intAttr('gen_ai.usage.input_tokens', 20 + turn * 12),
          intAttr('gen_ai.usage.output_tokens', 30 + turn * 5),
        ],
      }),
      buildSpan({
        name: 'execute_tool get_weather',
        kind: SpanKind.internal,
        context: agent,
        spanId: newSpanId(),
        start: ms(610),
        end: ms(880),
        attributes: [
          stringAttr('gen_ai.operation.name', 'execute_tool'),
          stringAttr('gen_ai.tool.name', 'get_weather'),
          conversation,
        ],
      }),
    );
  });
  return spans;
}

/** Seeds the demo into an empty state; a state that holds anything is left as it is. */
export function seedDemo(state: EmulatorState, now = Date.now()): boolean {
  if (state.models.models.size > 0 || state.jobs.size > 0) return false;
  const model = state.models.create({
    entity: EMULATOR_DEFAULT_TEAM,
    project: DEMO_PROJECT,
    name: DEMO_MODEL,
    base_model: 'OpenPipe/Qwen3-14B-Instruct',
  });
  // Created long enough ago that its whole schedule is due: it has finished by the first request.
  const stepMs = state.jobs.stepMs;
  const job = state.jobs.create(
    { kind: 'rl', model_id: model.id, groups: DEMO_STEPS, trajectories: DEMO_STEPS * 4, learningRate: 5e-6 },
    now - (DEMO_STEPS + 3) * stepMs,
  );
  state.jobs.advance(now);
  const resource = [
    stringAttr('service.name', 'demo-agent'),
    stringAttr('wandb.entity', EMULATOR_DEFAULT_TEAM),
    stringAttr('wandb.project', DEMO_PROJECT),
  ];
  const bytes = encodeRequest(spansRequest(resource, conversationSpans(BigInt(now) * 1_000_000n), 'demo'));
  state.spans.add('demo', bytes, routeParts(scanTraceRequest(bytes), undefined).parts);
  return job.status === 'succeeded';
}

/** What the demo seeded, if this state holds it: its model and that model's jobs. */
export function demoSeeds(state: EmulatorState): { model: EmulatedModel; jobs: EmulatedJob[] } | undefined {
  const model = state.models.findByName(EMULATOR_DEFAULT_TEAM, DEMO_PROJECT, DEMO_MODEL);
  if (!model) return undefined;
  return { model, jobs: state.jobs.all().filter((job) => job.model_id === model.id) };
}
