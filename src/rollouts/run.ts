// A rollout run: for each task not yet in the groups file, K samples on the Training API, each scored,
// gathered into a trajectory group and appended to the file when all K are in. Requests go out under
// an adaptive limit (adaptive-limit.ts): a 429 slows everything down and the request is made again,
// so nothing is dropped; a 5xx or a dropped connection is retried with backoff up to --max-retries,
// and past that the run stops, keeping every group already written (--resume carries on). A sample
// whose reward cannot be computed (the command failed, hung or printed garbage) is a failed
// trajectory: the group lists it under `exceptions`, with the reason, and the run goes on.

import { setMaxListeners } from 'node:events';
import type OpenAI from 'openai';
import { backoffDelay, isRetryableStatus, MAX_RETRY_AFTER_MS } from '../api/retry.js';
import type { Context } from '../context.js';
import { ApiError, CliError, NetworkError } from '../errors/errors.js';
import { seedFrom } from '../lib/seeded-random.js';
import { formatPath } from '../validate/schema.js';
import { checkGroup, emptyGroupStats } from '../validate/trajectory.js';
import { AdaptiveLimit } from './adaptive-limit.js';
import type { GroupFile } from './group-file.js';
import { type RewardResult, unwritableScore } from './reward-command.js';
import { type Sample, sampleOnce, Throttled } from './sample.js';
import type { Task } from './tasks.js';

/** Scores one sampled trajectory. */
export type Scorer = (
  task: Task,
  trajectory: Record<string, unknown>,
  reply: string,
  signal: AbortSignal,
) => Promise<RewardResult>;

export interface RolloutPlan {
  /** The Training API model: wandb-artifact:///team/project/name[:stepN]. */
  model: string;
  tasks: readonly Task[];
  groupSize: number;
  /** temperature, max_tokens and -o key=value. */
  params: Record<string, unknown>;
  concurrency: number;
  seed: number;
  score: Scorer;
  /** The reward as given ("--reward exact", "--reward-cmd …"), kept in each group's metadata. */
  reward: string;
}

export interface RolloutEvents {
  /** A group was written (or, without a file, completed). */
  onGroup?(group: Record<string, unknown>, task: Task, totals: Readonly<RolloutTotals>): void;
  /** One sample's request ended (for the rate), throttled or not. */
  onSample?(outcome: 'ok' | 'failed' | 'throttled', totals: Readonly<RolloutTotals>): void;
  /** Each exchange, for --trace. */
  traceExchange?(
    params: Record<string, unknown>,
  ): ((result: { ok: true; sample: Sample } | { error: unknown }) => Promise<void>) | undefined;
}

export interface RolloutTotals {
  groups: number;
  trajectories: number;
  failed: number;
  rewardSum: number;
  throttled: number;
  /** Sample requests that ended, answered or failed (a 429 is asked again): the rate's count. */
  requests: number;
}

/** The seed of one sample: the same run seed, task and sample give the same request. */
export function sampleSeed(runSeed: number, taskId: string, sample: number): number {
  return seedFrom(JSON.stringify([runSeed, taskId, sample])) & 0x7fffffff;
}

interface Slot {
  task: Task;
  sample: number;
  attempts: number;
}

type Outcome = { trajectory: Record<string, unknown>; reward: number } | { failure: string };

/**
 * 429s with no answer in between for this long (or for --timeout, when given): the limit is not
 * lifting (a spent quota answers 429 too), and slowing down further would only hang the run. It
 * stops, keeping what it wrote.
 */
export const THROTTLED_GIVE_UP_MS = 5 * 60_000;

/** What a retry may mend (a 429 is met apart, by the adaptive limit). */
function isRetryable(error: unknown): boolean {
  return error instanceof NetworkError || (error instanceof ApiError && isRetryableStatus(error.status));
}

export async function runRollouts(
  ctx: Context,
  client: OpenAI,
  plan: RolloutPlan,
  file: Pick<GroupFile, 'append'> | undefined,
  signal: AbortSignal,
  events: RolloutEvents = {},
): Promise<RolloutTotals> {
  const limit = new AdaptiveLimit(plan.concurrency);
  const totals: RolloutTotals = {
    groups: 0,
    trajectories: 0,
    failed: 0,
    rewardSum: 0,
    throttled: 0,
    requests: 0,
  };
  const where = { url: `${ctx.serviceUrl('training')}/chat/completions`, timeoutMs: ctx.timeoutMs };
  const maxRetries = ctx.globals.maxRetries ?? 3;
  const results = new Map<string, Outcome[]>();
  const queue: Slot[] = plan.tasks.flatMap((task) =>
    Array.from({ length: plan.groupSize }, (_, sample) => ({ task, sample, attempts: 0 })),
  );
  let fatal: unknown;
  let lastAnswer = Date.now();
  const giveUpMs = ctx.globals.timeout !== undefined ? ctx.timeoutMs : THROTTLED_GIVE_UP_MS;
  const stop = new AbortController();
  // Every request and every reward command in flight listens to it: as many as twice the concurrency.
  setMaxListeners(2 * plan.concurrency + 10, stop.signal);
  // Reward commands run at most `concurrency` at once too: sampling is often faster than scoring, and
  // without a bound every sampled reply would start a process of its own.
  const scoring = new AdaptiveLimit(plan.concurrency);
  const onAbort = () => stop.abort();
  // Stopping wakes whatever waits for a turn, a Retry-After pause included.
  stop.signal.addEventListener('abort', () => {
    limit.wakeAll();
    scoring.wakeAll();
  });
  signal.addEventListener('abort', onAbort, { once: true });

  const finishGroup = (task: Task, outcomes: Outcome[]) => {
    const trajectories = outcomes.flatMap((o) => ('trajectory' in o ? [o.trajectory] : []));
    const exceptions = outcomes.flatMap((o, sample) =>
      'failure' in o
        ? [{ type: 'RolloutError', message: `sample ${sample}: ${o.failure}`, traceback: '' }]
        : [],
    );
    const group: Record<string, unknown> = {
      trajectories,
      ...(exceptions.length > 0 ? { exceptions } : {}),
      metadata: {
        ...(task.metadata ?? {}),
        task_id: task.id,
        rollout_seed: plan.seed,
        rollout_model: plan.model,
        // How it was sampled and scored: a resumed file must go on the same way (rollouts.run.ts).
        rollout_params: plan.params,
        rollout_reward: plan.reward,
      },
    };
    // What is written is what jobs create rl and models log take: checked by the same validator.
    const issues = checkGroup(group, emptyGroupStats());
    if (issues.length > 0)
      throw new CliError(
        `internal: the group of task ${task.id} does not pass its own check: ${formatPath(issues[0]!.path)}: ${issues[0]!.msg}`,
      );
    file?.append(group);
    totals.groups++;
    totals.trajectories += trajectories.length;
    totals.failed += exceptions.length;
    for (const o of outcomes) if ('reward' in o) totals.rewardSum += o.reward;
    events.onGroup?.(group, task, totals);
  };

  const record = (slot: Slot, outcome: Outcome) => {
    const outcomes = results.get(slot.task.id) ?? [];
    results.set(slot.task.id, outcomes);
    outcomes[slot.sample] = outcome;
    if (outcomes.filter(Boolean).length === plan.groupSize) {
      results.delete(slot.task.id);
      finishGroup(slot.task, outcomes);
    }
  };

  const attempt = async (slot: Slot): Promise<void> => {
    const params = plan.params;
    const endTrace = events.traceExchange?.({ ...params });
    let sampled: Awaited<ReturnType<typeof sampleOnce>>;
    try {
      sampled = await sampleOnce(
        client,
        where,
        {
          model: plan.model,
          task: slot.task,
          params,
          seed: sampleSeed(plan.seed, slot.task.id, slot.sample),
        },
        stop.signal,
      );
    } catch (error) {
      await endTrace?.({ error });
      if (error instanceof Throttled) {
        // The server's pause, bounded as every other retry's is (a larger one, or a date far ahead,
        // would hold the run for hours, past what a timer can even count).
        limit.release('throttled', Math.min(error.retryAfterMs ?? 1000, MAX_RETRY_AFTER_MS));
        totals.throttled++;
        events.onSample?.('throttled', totals);
        if (Date.now() - lastAnswer > giveUpMs) {
          fatal ??= new ApiError(
            `the Training API answered only 429 (too many requests) for ${giveUpMs / 1000}s: its limit is not lifting`,
            429,
            undefined,
            { hint: "check the project's rate limits and quota, then carry on" },
          );
          stop.abort();
          return;
        }
        queue.unshift(slot);
        return;
      }
      limit.release('failed');
      totals.requests++;
      events.onSample?.('failed', totals);
      if (stop.signal.aborted) return;
      if (isRetryable(error) && slot.attempts < maxRetries) {
        slot.attempts++;
        await ctx.deps.sleep(backoffDelay(slot.attempts - 1, ctx.deps.random), stop.signal);
        queue.unshift(slot);
        return;
      }
      fatal ??= error;
      stop.abort();
      return;
    }
    lastAnswer = Date.now();
    limit.release(sampled.ok ? 'ok' : 'failed');
    totals.requests++;
    events.onSample?.(sampled.ok ? 'ok' : 'failed', totals);
    if (sampled.ok) await endTrace?.(sampled);
    if (!sampled.ok) return record(slot, { failure: sampled.reason });
    const trajectory: Record<string, unknown> = {
      messages_and_choices: [...slot.task.messages, sampled.sample.choice],
      ...(slot.task.tools ? { tools: slot.task.tools } : {}),
      metadata: { task_id: slot.task.id, sample: slot.sample },
    };
    await scoring.acquire();
    if (stop.signal.aborted) return scoring.release('ok');
    const scored = await plan
      .score(slot.task, trajectory, sampled.sample.reply, stop.signal)
      .finally(() => scoring.release('ok'));
    if (stop.signal.aborted) return;
    if (!scored.ok) return record(slot, { failure: `reward: ${scored.reason}` });
    // A reward the group could not carry fails its trajectory, not the run.
    const unwritable = unwritableScore(scored.scored);
    if (unwritable) return record(slot, { failure: `reward: ${unwritable}` });
    trajectory.reward = scored.scored.reward;
    if (scored.scored.metrics) trajectory.metrics = scored.scored.metrics;
    record(slot, { trajectory, reward: scored.scored.reward });
  };

  const inFlight = new Set<Promise<void>>();
  try {
    while (!stop.signal.aborted) {
      if (queue.length === 0) {
        if (inFlight.size === 0) break;
        await Promise.race(inFlight);
        continue;
      }
      await limit.acquire();
      const slot = queue.shift();
      if (!slot || stop.signal.aborted) {
        limit.release('failed');
        if (slot) queue.unshift(slot);
        continue;
      }
      const running: Promise<void> = attempt(slot)
        .catch((error) => {
          fatal ??= error;
          stop.abort();
        })
        .finally(() => inFlight.delete(running));
      inFlight.add(running);
    }
    await Promise.allSettled([...inFlight]);
  } finally {
    limit.close();
    scoring.close();
    signal.removeEventListener('abort', onAbort);
  }
  if (fatal) throw fatal;
  return totals;
}
