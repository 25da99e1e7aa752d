// `aip traces span --name N`: one span from the shell, for steps a wrapper cannot wrap (a start time
// taken earlier, an end now). Prints the span's traceparent, so that later spans can nest under it.
// A plain span unless a GenAI flag (--operation, --agent, --tool, --conversation) makes it one of the
// Agents view's; those flags also name it when --name does not.

import type { Context } from '../../context.js';
import { CliError, UsageError } from '../../errors/errors.js';
import { incomingContext, sendSpans, spanResource } from '../../traces/make/emit.js';
import {
  buildSpan,
  formatTraceparent,
  newSpanId,
  nowNanos,
  parseAttribute,
  parseTime,
  SpanKind,
  StatusCode,
  traceFor,
} from '../../traces/make/span.js';
import { traceClient } from '../../traces/send/client.js';
import { defaultKind, genAiAttributes } from './gen-ai-attributes.js';
import type { SpanOptions } from './span.js';

export async function runSpan(ctx: Context, options: SpanOptions): Promise<void> {
  // One "now" for both: --start now with the default end must not come out after it.
  const now = nowNanos();
  const end = options.end === undefined ? now : parseTime(options.end, '--end', now);
  const start = options.start === undefined ? end : parseTime(options.start, '--start', now);
  if (end < start) throw new UsageError(`--end is before --start`);
  if (options.statusMessage !== undefined && options.status !== 'error')
    throw new UsageError('--status-message goes with --status error');
  const user = (options.attr ?? []).map((a) => parseAttribute(a));
  const genAi = genAiAttributes(options, user, undefined);
  const name = options.name ?? genAi.name;
  if (name === undefined)
    throw new UsageError(
      '--name is required (or --operation, --agent, --tool or --conversation, which name it)',
    );
  const resource = spanResource(ctx, options.service);
  const client = traceClient(ctx);
  const context = traceFor(incomingContext(ctx, options.parent));
  const spanId = newSpanId();
  const span = buildSpan({
    name,
    kind: SpanKind[options.kind ?? defaultKind(genAi.operation)],
    context,
    spanId,
    start,
    end,
    attributes: [...genAi.attributes, ...user],
    status: {
      code: StatusCode[options.status ?? 'unset'],
      message: options.statusMessage,
    },
  });
  const result = await sendSpans(client, resource, [span]);
  if (result.rejected > 0)
    throw new CliError(`the span was rejected: ${result.errorMessage || 'no reason given'}`);
  const traceparent = formatTraceparent(context.traceId, spanId, context.flags);
  if (ctx.json) ctx.io.json({ traceparent, trace_id: context.traceId, span_id: spanId });
  else ctx.io.out(traceparent);
}
