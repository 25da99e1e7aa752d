// Sending the spans aip makes itself (traces exec and span, chat --trace): the resource they route
// by, the trace they continue (--parent or TRACEPARENT), and the request that carries them. The commands and the chat both use it, so it lives beside the spans rather than in either.

import type { Context } from '../../context.js';
import { UsageError } from '../../errors/errors.js';
import { VERSION } from '../../lib/version.js';
import { encodeRequest, type PbKeyValue, type PbSpan } from '../otlp/otlp.js';
import { resourceProject } from '../otlp/routing.js';
import { configuredProject, type TraceClient } from '../send/client.js';
import { localResource, parseTraceparent, spansRequest, type TraceContext } from './span.js';

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
