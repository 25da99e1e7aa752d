// `aip chat --trace`: each exchange recorded as an OpenTelemetry span, named and attributed as the
// GenAI semantic conventions say (api-contract.md §4.3): `chat <model>`, kind client, the operation,
// the models, token usage and finish reason, and in a conversation its id. It is sent to trace ingest
// after the reply is shown; a span that cannot be sent is a warning, never a failed chat.

import { randomUUID } from 'node:crypto';
import { incomingContext, sendSpan, spanResource, traceClient } from '../commands/traces/common.js';
import type { Context } from '../context.js';
import { ApiError, CliError } from '../errors.js';
import type { TraceClient } from '../traces/client.js';
import type { PbKeyValue } from '../traces/otlp.js';
import {
  buildSpan,
  intAttr,
  newSpanId,
  nowNanos,
  SpanKind,
  StatusCode,
  stringAttr,
  stringsAttr,
  type TraceContext,
  traceFor,
} from '../traces/span.js';
import type { ChatApi, Usage } from './types.js';

export interface ChatExchange {
  model: string;
  api: ChatApi;
  params: Record<string, unknown>;
}

export interface ChatResult {
  model?: string;
  finishReason: string | null;
  usage: Usage | undefined;
  interrupted: boolean;
}

export class ChatTracer {
  private readonly resource: PbKeyValue[];
  private readonly client: TraceClient;
  private readonly context: TraceContext;

  /** Checked before the first request: a trace that could not be sent is known up front. */
  constructor(
    private readonly ctx: Context,
    /** Set in a conversation: every turn carries it. */
    private readonly conversationId: string | undefined = undefined,
  ) {
    this.resource = spanResource(ctx, undefined);
    this.client = traceClient(ctx);
    this.context = traceFor(incomingContext(ctx, undefined));
  }

  static conversation(ctx: Context): ChatTracer {
    return new ChatTracer(ctx, randomUUID());
  }

  /** Starts the clock on one exchange; the returned function ends and sends its span. */
  start(exchange: ChatExchange): (result: ChatResult | { error: unknown }) => Promise<void> {
    const start = nowNanos();
    const spanId = newSpanId();
    return async (result) => {
      const end = nowNanos();
      const url = new URL(this.ctx.serviceUrl(exchange.api));
      const attributes: PbKeyValue[] = [
        stringAttr('gen_ai.operation.name', 'chat'),
        stringAttr('gen_ai.request.model', exchange.model),
        stringAttr('server.address', url.hostname),
      ];
      if (url.port) attributes.push(intAttr('server.port', Number(url.port)));
      if (this.conversationId) attributes.push(stringAttr('gen_ai.conversation.id', this.conversationId));
      const { temperature, max_tokens: maxTokens } = exchange.params;
      if (typeof temperature === 'number')
        attributes.push({ key: 'gen_ai.request.temperature', value: { doubleValue: temperature } });
      if (typeof maxTokens === 'number') attributes.push(intAttr('gen_ai.request.max_tokens', maxTokens));
      let status: { code: number; message?: string } = { code: StatusCode.unset };
      if ('error' in result) {
        const error = result.error;
        const type =
          error instanceof ApiError ? String(error.status) : error instanceof Error ? error.name : 'error';
        attributes.push(stringAttr('error.type', type));
        status = { code: StatusCode.error, message: error instanceof Error ? error.message : String(error) };
      } else {
        if (result.model) attributes.push(stringAttr('gen_ai.response.model', result.model));
        if (result.usage) {
          attributes.push(intAttr('gen_ai.usage.input_tokens', result.usage.prompt_tokens));
          attributes.push(intAttr('gen_ai.usage.output_tokens', result.usage.completion_tokens));
        }
        const reason = result.interrupted ? 'interrupted' : result.finishReason;
        if (reason) attributes.push(stringsAttr('gen_ai.response.finish_reasons', [reason]));
      }
      const span = buildSpan({
        name: `chat ${exchange.model}`,
        kind: SpanKind.client,
        context: this.context,
        spanId,
        start,
        end,
        attributes,
        status,
      });
      try {
        const sent = await sendSpan(this.client, this.resource, span);
        if (sent.rejected > 0)
          this.ctx.io.warn(`the chat span was rejected: ${sent.errorMessage || 'no reason given'}`);
      } catch (error) {
        this.ctx.io.warn(
          `the chat span could not be sent: ${error instanceof CliError ? error.message : String(error)}`,
        );
      }
    };
  }
}
