// What the traces commands share: the project spans route to, the ingest client, sending the spans
// that exec, span and chat --trace make, and the GenAI attributes exec and span take as flags.

import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { assertKeyMayBeSentTo } from '../../secrets.js';
import { TraceClient } from '../../traces/client.js';
import { encodeRequest, type PbKeyValue, type PbSpan } from '../../traces/otlp.js';
import { type Project, parseProject, resourceProject } from '../../traces/routing.js';
import {
  type GenAiOperation,
  genAiSpanName,
  localResource,
  parseTraceparent,
  type SpanKind,
  spansRequest,
  stringAttr,
  type TraceContext,
} from '../../traces/span.js';
import { VERSION } from '../../version.js';
import type { SpanAttributeOptions } from './flags.js';

export function configuredProject(ctx: Context): Project | undefined {
  return parseProject(ctx.settings.get('project'));
}

/** The ingest client; a key bound for plain http off this machine is refused now, before any work. */
export function traceClient(ctx: Context): TraceClient {
  const project = ctx.settings.get('project');
  assertKeyMayBeSentTo(ctx.serviceUrl('trace'));
  return new TraceClient(ctx.http('trace', { auth: 'required' }), project || undefined);
}

/** --parent, else $TRACEPARENT (a malformed one is a usage error only when given as the flag). */
export function incomingContext(ctx: Context, parent: string | undefined): TraceContext | undefined {
  if (parent !== undefined) {
    const context = parseTraceparent(parent);
    if (!context)
      throw new UsageError(`--parent ${parent}: expected a W3C traceparent, 00-<32 hex>-<16 hex>-<2 hex>`);
    return context;
  }
  const fromEnv = ctx.env.TRACEPARENT;
  const context = parseTraceparent(fromEnv);
  if (fromEnv && !context)
    ctx.io.warn(`ignoring TRACEPARENT=${fromEnv}: not a W3C traceparent; starting a new trace`);
  return context;
}

/**
 * The resource of spans made here, checked to route somewhere: spans without a project are dropped
 * by the platform, so this is a usage error before anything runs or is sent.
 */
export function spanResource(ctx: Context, service: string | undefined): PbKeyValue[] {
  const attributes = localResource(ctx.env, service, configuredProject(ctx));
  if (!resourceProject({ attributes })) {
    throw new UsageError(
      'no project for the span: --project team/project, aip config set project team/project, or OTEL_RESOURCE_ATTRIBUTES=wandb.entity=…,wandb.project=…',
    );
  }
  return attributes;
}

/** Sends the spans made here (one span, or a turn and its chat), in a resource of their own. */
export async function sendSpans(
  client: TraceClient,
  resource: PbKeyValue[],
  spans: PbSpan[],
  signal?: AbortSignal,
): Promise<{ accepted: number; rejected: number; errorMessage: string }> {
  return client.export(encodeRequest(spansRequest(resource, spans, VERSION)), spans.length, { signal });
}

/** The GenAI flags of exec and span (flags.ts), as they are given them. */
type GenAiFlags = Pick<SpanAttributeOptions, 'operation' | 'agent' | 'conversation' | 'tool'>;

/** Each GenAI attribute exec and span set, and the flag that sets it. */
const GEN_AI_FLAGS: Array<[key: string, flag: string, from: keyof GenAiFlags]> = [
  ['gen_ai.operation.name', '--operation', 'operation'],
  ['gen_ai.agent.name', '--agent', 'agent'],
  ['gen_ai.conversation.id', '--conversation', 'conversation'],
  ['gen_ai.tool.name', '--tool', 'tool'],
];

/**
 * The GenAI attributes of an exec or span (api-contract.md §4.3) and the name they give it. The
 * operation is --operation, else the one --agent (invoke_agent) or --tool (execute_tool) imply, else
 * the command's `fallback` (exec: execute_tool of the command), else for --conversation alone a turn
 * of the conversation (invoke_agent); with none of them, a plain span without GenAI attributes.
 * An --attr of a key these set is refused: two values for one key, and nothing says which was meant.
 */
export function genAiAttributes(
  given: GenAiFlags,
  user: readonly PbKeyValue[],
  fallback: { operation: GenAiOperation; tool: string } | undefined,
): { attributes: PbKeyValue[]; name?: string; operation?: GenAiOperation } {
  for (const [, flag, from] of GEN_AI_FLAGS) {
    if (given[from] === '') throw new UsageError(`${flag} needs a value`);
  }
  const implied = given.agent ? 'invoke_agent' : given.tool ? 'execute_tool' : undefined;
  const operation =
    given.operation ?? implied ?? fallback?.operation ?? (given.conversation ? 'invoke_agent' : undefined);
  if (!operation) return { attributes: [] };
  // exec names the command as the tool it runs, unless it is told the span is something else.
  const values: GenAiFlags = {
    ...given,
    operation,
    tool: given.tool ?? (operation === 'execute_tool' ? fallback?.tool : undefined),
  };
  for (const { key } of user) {
    const clash = GEN_AI_FLAGS.find(([k, , from]) => k === key && values[from] !== undefined);
    if (clash) {
      const [, flag, from] = clash;
      throw new UsageError(
        given[from] === undefined
          ? `--attr ${key}: this span's ${key} is ${values[from]} (from its other flags, or by default); set it with ${flag} instead`
          : `--attr ${key}: ${flag} sets it already; give only one of them`,
      );
    }
  }
  const attributes = GEN_AI_FLAGS.flatMap(([key, , from]) => {
    const value = values[from];
    return value === undefined ? [] : [stringAttr(key, value)];
  });
  const model = user.find((a) => a.key === 'gen_ai.request.model')?.value?.stringValue ?? undefined;
  const target = { chat: model, invoke_agent: values.agent, execute_tool: values.tool }[operation];
  return { attributes, name: genAiSpanName(operation, target), operation };
}

/**
 * A span's kind when --kind is not given, as the conventions have it: a chat is a call to a model
 * server (client); an agent run here, a tool and a plain span are internal.
 */
export function defaultKind(operation: GenAiOperation | undefined): keyof typeof SpanKind {
  return operation === 'chat' ? 'client' : 'internal';
}
