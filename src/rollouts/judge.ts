// --reward judge:MODEL: a model of the Inference API scores the replies, by a rubric (--rubric FILE),
// with structured output (judge-prompt.ts says what is asked and how the answer is read). Either each
// reply alone, or with --judge-group each group in one request, its members against each other (as
// RULER does: a relative score suits GRPO, which compares a group's members anyway).
//
// Requests go through the openai SDK and aip's one retry loop (api/openai.ts sdkCall), with the
// platform's key: a 5xx or a lost connection is sent again up to --max-retries. A 429 is not a retry:
// the request waits the server's pause and is asked again, as a rollout's is, and the run stops only
// when 429s alone have come for minutes (throttle.ts). Each attempt is bounded by --reward-timeout.
//
// What fails only the trajectory (the run goes on, as with --reward-cmd): an answer that is not a
// judgement (judge-prompt.ts), an attempt past --reward-timeout, and a 400 or 413 (this request is
// too long for the model). What stops the run (the groups written stay, --resume carries on): every
// other refusal (401, 403: the key; 404: no such model; 422: the model does not take the request's
// form, structured output included) and a judge unreachable after retries: every trajectory would
// fail the same way, and sampling on would spend samples for nothing.

import type OpenAI from 'openai';
import type { Context } from '../context.js';
import { ApiError, CliError, NetworkError, UsageError } from '../errors/errors.js';
import { isObject } from '../lib/json.js';
import { seedFrom } from '../lib/seeded-random.js';
import {
  type JudgeAnswer,
  type JudgedReply,
  judgeMessages,
  judgementFormat,
  readGroupJudgement,
  readJudgement,
} from './judge-prompt.js';
import type { RewardResult } from './reward-command.js';
import type { GroupScorer, Member, Scorer } from './run.js';
import type { Task } from './tasks.js';
import { THROTTLED_GIVE_UP_MS, ThrottleWatch } from './throttle.js';

export interface JudgeSetup {
  /** The Inference API model: an id of its list, or a wandb-artifact:/// LoRA. */
  model: string;
  rubric: string;
  /** --judge-group: one request per group. */
  group: boolean;
  /** --reward-timeout, per attempt. */
  timeoutMs: number;
  /** The run's seed: a judge request's own is derived from it, so a rerun asks the same. */
  seed: number;
}

/** The SDK's own timeout is this much past an attempt's deadline, which always fires first. */
const ATTEMPT_MARGIN_MS = 1000;

/** Statuses about this request alone (too long for the model): its trajectories fail, the run goes on. */
const ABOUT_THE_REQUEST = new Set([400, 413]);

/** The assistant's message a trajectory ends with (its reply, tool calls included). */
function replyOf(trajectory: Record<string, unknown>, reply: string): JudgedReply {
  const last = Array.isArray(trajectory.messages_and_choices)
    ? trajectory.messages_and_choices.at(-1)
    : undefined;
  const message = isObject(last) && isObject(last.message) ? last.message : undefined;
  return { message: message ?? { role: 'assistant', content: reply } };
}

/** The judge's request and its answer, through the retry loop; a failure as the rules above say. */
class Judge {
  private client: OpenAI | undefined;
  private listed: Promise<string[]> | undefined;
  private readonly throttle: ThrottleWatch;

  constructor(
    private readonly ctx: Context,
    readonly setup: JudgeSetup,
  ) {
    this.throttle = new ThrottleWatch(
      ctx.globals.timeout !== undefined ? ctx.timeoutMs : THROTTLED_GIVE_UP_MS,
    );
  }

  /**
   * Before anything is sampled: a judge the Inference API does not list is refused (a LoRA of
   * wandb-artifact:/// is not listed, and an empty list, which the service has answered, says nothing).
   */
  async prepare(): Promise<void> {
    const { ctx, setup } = this;
    if (setup.model.startsWith('wandb-artifact:')) return;
    this.listed ??= this.listModels();
    const models = await this.listed;
    if (models.length > 0 && !models.includes(setup.model))
      throw new UsageError(
        `judge:${setup.model}: the Inference API serves no such model (it lists ${models.length}: ${ctx.commandLine(['models', 'list'])})`,
      );
  }

  private async listModels(): Promise<string[]> {
    const { listInferenceModels, openaiClient } = await import('../api/openai.js');
    this.client ??= await openaiClient(this.ctx, 'inference');
    return (await listInferenceModels(this.ctx, this.client)).map((m) => String(m.id));
  }

  async ask(task: Task, replies: readonly JudgedReply[], which: string, stop: AbortSignal) {
    const { ctx, setup } = this;
    const { openaiClient, meteredCall } = await import('../api/openai.js');
    this.client ??= await openaiClient(ctx, 'inference');
    const client = this.client;
    const body = {
      model: setup.model,
      messages: judgeMessages(task, replies, setup.rubric, setup.group),
      response_format: judgementFormat(setup.group ? replies.length : undefined),
      temperature: 0,
      seed: seedFrom(JSON.stringify(['judge', setup.seed, task.id, which])) & 0x7fffffff,
      stream: false,
    } satisfies OpenAI.Chat.ChatCompletionCreateParamsNonStreaming;
    const where = {
      method: 'POST',
      url: `${ctx.serviceUrl('inference')}/chat/completions`,
      timeoutMs: setup.timeoutMs,
    };
    // Each attempt is bounded by --reward-timeout, not by --timeout (the client's): a deadline of its
    // own, and the SDK's timeout a little past it, so that the deadline is what ends a slow attempt,
    // which then fails its trajectory and is not sent again. Only the last attempt's deadline counts:
    // an earlier one firing during a later retry or pause says nothing.
    let deadline: AbortSignal | undefined;
    const attempt = () => {
      deadline = AbortSignal.timeout(setup.timeoutMs);
      return client.chat.completions.create(body, {
        signal: AbortSignal.any([stop, deadline]),
        timeout: setup.timeoutMs + ATTEMPT_MARGIN_MS,
      });
    };
    try {
      const completion = await meteredCall(client, where, attempt, {
        signal: stop,
        onThrottled: (ms) => this.throttled(ms, stop),
        meter: { purpose: 'judge', model: setup.model, request: body },
      });
      this.throttle.answered();
      return { ok: true as const, answer: answerOf(completion) };
    } catch (error) {
      if (stop.aborted) return { ok: false as const, reason: 'stopped' };
      const { APIUserAbortError } = await import('openai');
      if (deadline?.aborted && error instanceof APIUserAbortError)
        return { ok: false as const, reason: `the judge took more than ${setup.timeoutMs / 1000}s` };
      return { ok: false as const, reason: failure(error, setup.model) };
    }
  }

  /** A 429: the server's pause, then asked again; thrown when 429s alone have come for too long. */
  private async throttled(retryAfterMs: number | undefined, stop: AbortSignal): Promise<void> {
    const decision = this.throttle.decide(retryAfterMs);
    if (decision.giveUp) throw this.throttle.notLifting('the Inference API (the judge)');
    await this.ctx.deps.sleep(decision.pauseMs, stop);
    if (stop.aborted) throw stop.reason;
  }
}

function answerOf(completion: OpenAI.Chat.ChatCompletion): JudgeAnswer {
  const first: unknown = Array.isArray(completion?.choices) ? completion.choices[0] : undefined;
  const message: Record<string, unknown> = isObject(first) && isObject(first.message) ? first.message : {};
  return {
    content: typeof message.content === 'string' ? message.content : null,
    refusal: typeof message.refusal === 'string' ? message.refusal : null,
    finishReason: isObject(first) && typeof first.finish_reason === 'string' ? first.finish_reason : null,
  };
}

/** A failed judge request: the trajectory's reason, or (thrown) the error that stops the run. */
function failure(error: unknown, model: string): string {
  if (error instanceof ApiError) {
    if (ABOUT_THE_REQUEST.has(error.status)) return `the judge refused the request: ${error.message}`;
    error.hint ??=
      error.status === 404
        ? `is ${model} a model of the Inference API? (aip models list)`
        : error.status === 422
          ? `${model} may not take structured output (response_format json_schema): give another judge`
          : 'a judge that cannot answer would fail every trajectory, so the run stopped';
    throw error;
  }
  if (error instanceof NetworkError) {
    error.hint ??= 'a judge that cannot be reached would fail every trajectory, so the run stopped';
    throw error;
  }
  // An answer past its size limit: about this answer only (its message says how to raise the limit).
  if (error instanceof CliError && error.name === 'LimitError') return `${error.message} (${error.hint})`;
  throw error;
}

/** The scorer of --reward judge:MODEL without --judge-group: one request per reply. */
export function judgeScorer(ctx: Context, setup: JudgeSetup): Scorer {
  const judge = new Judge(ctx, setup);
  const scorer: Scorer = async (task, trajectory, reply, stop): Promise<RewardResult> => {
    const sample = isObject(trajectory.metadata) ? String(trajectory.metadata.sample) : '';
    const asked = await judge.ask(task, [replyOf(trajectory, reply)], sample, stop);
    return asked.ok ? readJudgement(asked.answer) : { ok: false, reason: asked.reason };
  };
  scorer.prepare = () => judge.prepare();
  scorer.requests = 1;
  return scorer;
}

/** The scorer of --reward judge:MODEL --judge-group: one request per group, a result per member. */
export function judgeGroupScorer(ctx: Context, setup: JudgeSetup): GroupScorer {
  const judge = new Judge(ctx, setup);
  return {
    perGroup: true,
    requests: 1,
    prepare: () => judge.prepare(),
    async scoreGroup(task: Task, members: readonly Member[], stop: AbortSignal): Promise<RewardResult[]> {
      const replies = members.map((m) => replyOf(m.trajectory, m.reply));
      const asked = await judge.ask(task, replies, 'group', stop);
      if (!asked.ok) return members.map(() => ({ ok: false, reason: asked.reason }));
      return readGroupJudgement(asked.answer, members.length);
    },
  };
}
