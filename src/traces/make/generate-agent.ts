// Synthetic spans shaped like an instrumented GenAI agent's (`traces generate --shape agent`): each
// trace is one agent turn, an `invoke_agent` root over `chat` calls to a model and the `execute_tool`
// calls between them, with the OpenTelemetry GenAI semantic conventions' attributes (models, token
// counts, temperatures, finish-reason arrays, tool call ids) and the prompt and completion text as
// events, about 1 KB of OTLP/JSON a span, as real agent traces are. The mixed shape (generate.ts) has
// every kind of value but little text; ingest costs differ between the two, so both are measured.

import { seededRandom } from '../../lib/seeded-random.js';
import type { GenerateOptions } from './generate.js';

type Json = Record<string, unknown>;

const AGENTS = ['support-agent', 'research-agent', 'sql-agent'];
const MODELS = ['openai/gpt-oss-20b', 'Qwen/Qwen3-14B-Instruct', 'meta-llama/Llama-3.1-8B-Instruct'];
const TOOLS = ['search_docs', 'run_sql', 'fetch_url', 'read_file', 'calculator'];
const FINISH = ['stop', 'stop', 'stop', 'tool_calls', 'length'];
const WORDS = (
  'the agent user order refund policy table rows query result error retry answer customer invoice ' +
  'search found page summary step plan tool call returned because which should would could data ' +
  'ünïcødé "quoted" line\nbreak 42 3.14 {"id": 7} account status shipped pending'
).split(' ');

const str = (key: string, value: string): Json => ({ key, value: { stringValue: value } });
const int = (key: string, value: number): Json => ({ key, value: { intValue: String(value) } });
const dbl = (key: string, value: number): Json => ({ key, value: { doubleValue: value } });

export function* generateAgentDocuments(options: GenerateOptions): Generator<Json> {
  const random = seededRandom(options.seed);
  const below = (n: number) => Math.floor(random() * n);
  const pick = <T>(list: readonly T[]): T => list[below(list.length)]!;
  const hex = (bytes: number) => {
    let out = '';
    for (let i = 0; i < bytes; i++) out += below(256).toString(16).padStart(2, '0');
    return /[^0]/.test(out) ? out : `${out.slice(0, -1)}1`;
  };
  const text = (words: number) => Array.from({ length: words }, () => pick(WORDS)).join(' ');
  const resource = (agent: string): Json => {
    const attributes = [
      str('service.name', agent),
      str('service.version', '2.3.1'),
      str('telemetry.sdk.name', 'opentelemetry'),
      str('telemetry.sdk.language', 'python'),
      str('telemetry.sdk.version', '1.38.0'),
    ];
    if (options.project)
      attributes.push(
        str('wandb.entity', options.project.entity),
        str('wandb.project', options.project.project),
      );
    return { attributes };
  };

  let made = 0;
  let clock = options.startNanos;
  while (made < options.spans) {
    const count = Math.min(options.perDocument, options.spans - made);
    const agent = pick(AGENTS);
    const spans: Json[] = [];
    while (spans.length < count) {
      const turn = agentTurn({ agent, clock, room: count - spans.length, below, pick, hex, text });
      spans.push(...turn.spans);
      clock = turn.end + BigInt(1_000_000 + below(50_000_000));
    }
    made += count;
    yield {
      resourceSpans: [
        {
          resource: resource(agent),
          scopeSpans: [
            {
              scope: { name: 'opentelemetry.instrumentation.openai_v2', version: '0.4b0' },
              spans,
            },
          ],
          schemaUrl: 'https://opentelemetry.io/schemas/1.28.0',
        },
      ],
    };
  }
}

interface TurnTools {
  agent: string;
  clock: bigint;
  /** Spans left in the document: a turn is cut short rather than cross a document's end. */
  room: number;
  below: (n: number) => number;
  pick: <T>(list: readonly T[]) => T;
  hex: (bytes: number) => string;
  text: (words: number) => string;
}

/** One turn of the agent: the root span, then model calls and tool calls in turn, children of the root. */
function agentTurn(t: TurnTools): { spans: Json[]; end: bigint } {
  const traceId = t.hex(16);
  const rootId = t.hex(8);
  const conversation = `conv_${t.hex(6)}`;
  const model = t.pick(MODELS);
  const children: Json[] = [];
  let at = t.clock + BigInt(200_000 + t.below(800_000));
  let input = 0;
  let output = 0;
  // At most room - 1 children, alternating chat and tool, ending with a chat that answers.
  const calls = Math.min(t.room - 1, 1 + 2 * t.below(4));
  for (let i = 0; i < calls; i++) {
    const span = i % 2 === 0 ? chatSpan(t, model, at, i === calls - 1) : toolSpan(t, at);
    span.traceId = traceId;
    span.parentSpanId = rootId;
    children.push(span);
    input += (span.inputTokens as number | undefined) ?? 0;
    output += (span.outputTokens as number | undefined) ?? 0;
    delete span.inputTokens;
    delete span.outputTokens;
    at = BigInt(span.endTimeUnixNano as string) + BigInt(50_000 + t.below(500_000));
  }
  const root: Json = {
    traceId,
    spanId: rootId,
    name: `invoke_agent ${t.agent}`,
    kind: 1,
    startTimeUnixNano: String(t.clock),
    endTimeUnixNano: String(at),
    attributes: [
      str('gen_ai.operation.name', 'invoke_agent'),
      str('gen_ai.provider.name', 'openai'),
      str('gen_ai.agent.name', t.agent),
      str('gen_ai.agent.id', `agent_${t.hex(4)}`),
      str('gen_ai.conversation.id', conversation),
      str('gen_ai.request.model', model),
      int('gen_ai.usage.input_tokens', input),
      int('gen_ai.usage.output_tokens', output),
    ],
    status: { code: 1 },
  };
  return { spans: [root, ...children], end: at };
}

function chatSpan(t: TurnTools, model: string, start: bigint, last: boolean): Json {
  const inputTokens = 200 + t.below(3000);
  const outputTokens = 20 + t.below(600);
  const end = start + BigInt(outputTokens) * BigInt(8_000_000 + t.below(12_000_000));
  const finish = last ? t.pick(FINISH.filter((f) => f !== 'tool_calls')) : 'tool_calls';
  return {
    spanId: t.hex(8),
    name: `chat ${model}`,
    kind: 3,
    startTimeUnixNano: String(start),
    endTimeUnixNano: String(end),
    attributes: [
      str('gen_ai.operation.name', 'chat'),
      str('gen_ai.provider.name', 'openai'),
      str('gen_ai.request.model', model),
      dbl('gen_ai.request.temperature', t.pick([0, 0.2, 0.7, 1])),
      int('gen_ai.request.max_tokens', 1024),
      str('gen_ai.response.model', model),
      str('gen_ai.response.id', `chatcmpl-${t.hex(12)}`),
      {
        key: 'gen_ai.response.finish_reasons',
        value: { arrayValue: { values: [{ stringValue: finish }] } },
      },
      int('gen_ai.usage.input_tokens', inputTokens),
      int('gen_ai.usage.output_tokens', outputTokens),
      str('server.address', 'api.inference.wandb.ai'),
      int('server.port', 443),
    ],
    events: [
      {
        timeUnixNano: String(start),
        name: 'gen_ai.user.message',
        attributes: [str('gen_ai.system', 'openai'), str('content', t.text(6 + t.below(20)))],
      },
      {
        timeUnixNano: String(end),
        name: 'gen_ai.choice',
        attributes: [
          str('gen_ai.system', 'openai'),
          int('index', 0),
          str('finish_reason', finish),
          str('message', t.text(4 + t.below(16))),
        ],
      },
    ],
    status: { code: 1 },
    inputTokens,
    outputTokens,
  };
}

function toolSpan(t: TurnTools, start: bigint): Json {
  const tool = t.pick(TOOLS);
  const end = start + BigInt(1_000_000 + t.below(900_000_000));
  const failed = t.below(20) === 0;
  const span: Json = {
    spanId: t.hex(8),
    name: `execute_tool ${tool}`,
    kind: 1,
    startTimeUnixNano: String(start),
    endTimeUnixNano: String(end),
    attributes: [
      str('gen_ai.operation.name', 'execute_tool'),
      str('gen_ai.tool.name', tool),
      str('gen_ai.tool.type', 'function'),
      str('gen_ai.tool.call.id', `call_${t.hex(10)}`),
      str('gen_ai.tool.call.arguments', JSON.stringify({ query: t.text(4 + t.below(8)) })),
      str('gen_ai.tool.call.result', t.text(4 + t.below(16))),
    ],
    status: failed ? { code: 2, message: 'tool failed: upstream 503' } : { code: 1 },
  };
  if (failed)
    span.events = [
      {
        timeUnixNano: String(end),
        name: 'exception',
        attributes: [str('exception.type', 'HTTPError'), str('exception.message', '503 Service Unavailable')],
      },
    ];
  return span;
}
