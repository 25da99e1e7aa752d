// `aip chat --trace`: each exchange recorded as OpenTelemetry spans, named and attributed as the
// GenAI semantic conventions say, for the Agents view (api-contract.md §4.3). The model call is a
// `chat <model>` span (kind client): the provider, the models, token usage, finish reason, and in a
// conversation its id. When the exchange is a turn with an agent (every turn of a conversation, and a
// one-shot chat whose agent is known: --agent, or a trained model's name) the chat span is the child
// of an `invoke_agent <agent>` span, the root of a trace of its own unless TRACEPARENT gives a parent.
// They are sent to trace ingest after the reply is shown; spans that cannot be sent are a warning,
// never a failed chat.

import { randomUUID } from 'node:crypto';
import type { Context } from '../context.js';
import { ApiError, CliError } from '../errors/errors.js';
import { incomingContext, sendSpans, spanResource } from '../traces/make/emit.js';
import {
  buildSpan,
  genAiSpanName,
  intAttr,
  newSpanId,
  nowNanos,
  providerAttrs,
  SpanKind,
  StatusCode,
  stringAttr,
  stringsAttr,
  type TraceContext,
  traceFor,
} from '../traces/make/span.js';
import type { PbKeyValue, PbSpan } from '../traces/otlp/otlp.js';
import type { TraceClient } from '../traces/send/client.js';
import { traceClient } from '../traces/send/client.js';
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

type Outcome = ChatResult | { error: unknown };
type Status = { code: number; message?: string };

const TRAINED = /^wandb-artifact:\/\/\/[^/]+\/[^/]+\/([^/:]+)(?::[^/]*)?$/;

/**
 * The agent a model is, when it is a trained one: its name (agent-001 of
 * wandb-artifact:///team/project/agent-001:step5). `-m agent-001:step5` resolves to that URI, so a
 * remembered model and the same model given by URI (in CI, where nothing is remembered) group alike.
 */
export function trainedModelName(model: string): string | undefined {
  return TRAINED.exec(model)?.[1];
}

function outcomeStatus(outcome: Outcome): { status: Status; errorType?: string } {
  if (!('error' in outcome)) return { status: { code: StatusCode.unset } };
  const error = outcome.error;
  const errorType =
    error instanceof ApiError ? String(error.status) : error instanceof Error ? error.name : 'error';
  const message = error instanceof Error ? error.message : String(error);
  return { status: { code: StatusCode.error, message }, errorType };
}

function usageAttrs(usage: Usage | undefined): PbKeyValue[] {
  return usage
    ? [
        intAttr('gen_ai.usage.input_tokens', usage.prompt_tokens),
        intAttr('gen_ai.usage.output_tokens', usage.completion_tokens),
      ]
    : [];
}

export class ChatTracer {
  private readonly resource: PbKeyValue[];
  private readonly client: TraceClient;
  private readonly incoming: TraceContext | undefined;

  /** Checked before the first request: a trace that could not be sent is known up front. */
  constructor(
    private readonly ctx: Context,
    private readonly options: {
      /** --agent: the agent of every exchange (else a trained model's name, where it is one). */
      agent?: string;
      /** Set in a conversation: every exchange is a turn, and carries it. */
      conversationId?: string;
    } = {},
  ) {
    this.resource = spanResource(ctx, undefined);
    this.client = traceClient(ctx);
    this.incoming = incomingContext(ctx, undefined);
  }

  static conversation(ctx: Context, agent?: string): ChatTracer {
    return new ChatTracer(ctx, { agent, conversationId: randomUUID() });
  }

  /** Starts the clock on one exchange; the returned function ends and sends its spans. */
  start(exchange: ChatExchange): (result: Outcome) => Promise<void> {
    const agent = this.options.agent ?? trainedModelName(exchange.model);
    const isTurn = this.options.conversationId !== undefined || agent !== undefined;
    // Each exchange a trace of its own (api-contract.md §4.3: a turn is the root of its trace).
    const trace = traceFor(this.incoming);
    const turnId = isTurn ? newSpanId() : undefined;
    const turnStart = nowNanos();
    const chatId = newSpanId();
    const chatStart = nowNanos();
    return async (result) => {
      const chatEnd = nowNanos();
      const { status, errorType } = outcomeStatus(result);
      const usage = 'error' in result ? undefined : result.usage;
      const spans: PbSpan[] = [
        buildSpan({
          name: `chat ${exchange.model}`,
          kind: SpanKind.client,
          context: turnId ? { ...trace, spanId: turnId } : trace,
          spanId: chatId,
          start: chatStart,
          end: chatEnd,
          attributes: this.chatAttributes(exchange, result, errorType),
          status,
        }),
      ];
      if (turnId) {
        // The agent runs here (aip holds the conversation), so the turn is internal; its usage is
        // that of its chat calls, of which a turn makes one.
        const attributes = [
          stringAttr('gen_ai.operation.name', 'invoke_agent'),
          ...providerAttrs(),
          ...(agent ? [stringAttr('gen_ai.agent.name', agent)] : []),
          ...this.conversationAttrs(),
          stringAttr('gen_ai.request.model', exchange.model),
          ...usageAttrs(usage),
          ...(errorType ? [stringAttr('error.type', errorType)] : []),
        ];
        spans.unshift(
          buildSpan({
            name: genAiSpanName('invoke_agent', agent),
            kind: SpanKind.internal,
            context: trace,
            spanId: turnId,
            start: turnStart,
            end: nowNanos(),
            attributes,
            status,
          }),
        );
      }
      const one = spans.length === 1;
      const what = one ? 'the chat span' : "the turn's spans";
      try {
        const sent = await sendSpans(this.client, this.resource, spans);
        if (sent.rejected > 0) {
          const which = one
            ? 'the chat span was'
            : `${sent.rejected} of the turn's ${spans.length} spans were`;
          this.ctx.io.warn(`${which} rejected: ${sent.errorMessage || 'no reason given'}`);
        }
      } catch (error) {
        this.ctx.io.warn(
          `${what} could not be sent: ${error instanceof CliError ? error.message : String(error)}`,
        );
      }
    };
  }

  private conversationAttrs(): PbKeyValue[] {
    const id = this.options.conversationId;
    return id ? [stringAttr('gen_ai.conversation.id', id)] : [];
  }

  private chatAttributes(exchange: ChatExchange, result: Outcome, errorType: string | undefined) {
    const url = new URL(this.ctx.serviceUrl(exchange.api));
    const attributes: PbKeyValue[] = [
      stringAttr('gen_ai.operation.name', 'chat'),
      ...providerAttrs(),
      stringAttr('gen_ai.request.model', exchange.model),
      stringAttr('server.address', url.hostname),
    ];
    if (url.port) attributes.push(intAttr('server.port', Number(url.port)));
    attributes.push(...this.conversationAttrs());
    const { temperature, max_tokens: maxTokens } = exchange.params;
    if (typeof temperature === 'number')
      attributes.push({ key: 'gen_ai.request.temperature', value: { doubleValue: temperature } });
    if (typeof maxTokens === 'number') attributes.push(intAttr('gen_ai.request.max_tokens', maxTokens));
    if ('error' in result) {
      attributes.push(stringAttr('error.type', errorType ?? 'error'));
      return attributes;
    }
    if (result.model) attributes.push(stringAttr('gen_ai.response.model', result.model));
    attributes.push(...usageAttrs(result.usage));
    const reason = result.interrupted ? 'interrupted' : result.finishReason;
    if (reason) attributes.push(stringsAttr('gen_ai.response.finish_reasons', [reason]));
    return attributes;
  }
}
