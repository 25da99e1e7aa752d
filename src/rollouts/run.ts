// A rollout run: for each task not yet in the groups file, K samples on the Training API, each scored,
// gathered into a trajectory group (group.ts) and appended to the file when all K are in. Requests go
// out under an adaptive limit (scheduler.ts): a 429 slows everything down and the request is made
// again (throttle.ts), so nothing is dropped; a 5xx or a dropped connection is retried as every
// request is, up to --max-retries (api/retrying.ts), and past that the run stops, keeping every group
// already written (--resume carries on). A sample whose reward cannot be computed (the command failed,
// hung or printed garbage) is a failed trajectory: the group lists it under `exceptions`, with the
// reason, and the run goes on.

import { setMaxListeners } from 'node:events';
import type OpenAI from 'openai';
import type { Budget, Reservation } from '../budget/budget.js';
import type { Context } from '../context.js';
import { BudgetReachedError, CliError } from '../errors/errors.js';
import { seedFrom } from '../lib/seeded-random.js';
import { AdaptiveLimit } from './adaptive-limit.js';
import { buildGroup, GroupAssembler, type Outcome, type RunOrigin } from './group.js';
import type { GroupFile } from './group-file.js';
import { type RewardResult, unwritableScore } from './reward-command.js';
import { type Sample, sampleOnce } from './sample.js';
import { type Permit, runSlots } from './scheduler.js';
import type { Task } from './tasks.js';
import { THROTTLED_GIVE_UP_MS, ThrottleWatch } from './throttle.js';

/**
 * Scores one sampled trajectory. A scorer that keeps something running (a reward server's processes)
 * starts it on its first call and lets it go in close(), which runRollouts calls when the run ends;
 * called again after that, it starts again.
 */
export type Scorer = ((
  task: Task,
  trajectory: Record<string, unknown>,
  reply: string,
  signal: AbortSignal,
) => Promise<RewardResult>) &
  ScorerLife;

/**
 * What a scorer may need around its calls: prepare(), awaited before anything is sampled (a judge
 * checks its model is served), and close().
 */
export interface ScorerLife {
  prepare?: () => Promise<void>;
  /** Requests each call makes to the platform (a judge's verdict: 1), which a budget reserves. */
  requests?: number;
  close?: () => Promise<void>;
}

/** One sampled member of a group, as a group scorer is given it. */
export interface Member {
  sample: number;
  trajectory: Record<string, unknown>;
  reply: string;
}

/**
 * Scores a task's group in one go, each member against the others (--reward judge:M --judge-group):
 * called once all K samples have ended, with those that were sampled; a result per member, in order.
 */
export interface GroupScorer extends ScorerLife {
  readonly perGroup: true;
  scoreGroup(task: Task, members: readonly Member[], signal: AbortSignal): Promise<RewardResult[]>;
}

export const isGroupScorer = (score: Scorer | GroupScorer): score is GroupScorer =>
  typeof score !== 'function';

/** Where a scorer's result leaves a trajectory: scored, or failed with the reason. */
export function outcomeOf(trajectory: Record<string, unknown>, result: RewardResult): Outcome {
  if (!result.ok) return { failure: `reward: ${result.reason}` };
  // A reward the group could not carry fails its trajectory, not the run.
  const unwritable = unwritableScore(result.scored);
  if (unwritable) return { failure: `reward: ${unwritable}` };
  const { reward, metrics, metadata } = result.scored;
  const scored: Record<string, unknown> = { ...trajectory, reward };
  if (metrics) scored.metrics = metrics;
  if (metadata) scored.metadata = { ...metadata, ...(trajectory.metadata as object) };
  return { trajectory: scored, reward };
}

export interface RolloutPlan {
  /** The Training API model: wandb-artifact:///team/project/name[:stepN]. */
  model: string;
  tasks: readonly Task[];
  groupSize: number;
  /** temperature, max_tokens and -o key=value. */
  params: Record<string, unknown>;
  concurrency: number;
  seed: number;
  score: Scorer | GroupScorer;
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
}

/** One run's state, shared by its slots: what they count, and what stops them. */
class Rollout {
  readonly totals: RolloutTotals = {
    groups: 0,
    trajectories: 0,
    failed: 0,
    rewardSum: 0,
    throttled: 0,
    requests: 0,
  };
  readonly stop = new AbortController();
  readonly limit: AdaptiveLimit;
  /**
   * Reward commands run at most `concurrency` at once too: sampling is often faster than scoring, and
   * without a bound every sampled reply would start a process of its own.
   */
  readonly scoring: AdaptiveLimit;
  readonly groups: GroupAssembler<Outcome | { unscored: Member }>;
  readonly throttle: ThrottleWatch;
  readonly origin: RunOrigin;
  readonly where: { url: string; timeoutMs: number };
  fatal: unknown;
  /**
   * The budget was reached (budget/budget.ts): no slot starts any more, but those in flight finish
   * and their groups are written, unlike a failure, which stops them.
   */
  budgetReached: BudgetReachedError | undefined;
  /** Under a budget, each group's reservation of its requests (budget/budget.ts), by task id. */
  private readonly reservations = new Map<string, Promise<Reservation>>();
  private readonly budget: Budget | undefined;

  constructor(
    ctx: Context,
    readonly client: OpenAI,
    readonly plan: RolloutPlan,
    readonly file: Pick<GroupFile, 'append'> | undefined,
    readonly events: RolloutEvents,
  ) {
    this.limit = new AdaptiveLimit(plan.concurrency);
    this.scoring = new AdaptiveLimit(plan.concurrency);
    this.groups = new GroupAssembler(plan.groupSize);
    this.throttle = new ThrottleWatch(
      ctx.globals.timeout !== undefined ? ctx.timeoutMs : THROTTLED_GIVE_UP_MS,
    );
    // How it was sampled and scored: a resumed file must go on the same way (group-file.ts).
    this.origin = {
      rollout_seed: plan.seed,
      rollout_model: plan.model,
      rollout_params: plan.params,
      rollout_reward: plan.reward,
    };
    this.where = { url: `${ctx.serviceUrl('training')}/chat/completions`, timeoutMs: ctx.timeoutMs };
    this.budget = ctx.budget?.limited ? ctx.budget : undefined;
    // Every request and every reward command in flight listens to it: as many as twice the concurrency.
    setMaxListeners(2 * plan.concurrency + 10, this.stop.signal);
    // Stopping wakes whatever waits for a turn, a Retry-After pause included.
    this.stop.signal.addEventListener('abort', () => {
      this.limit.wakeAll();
      this.scoring.wakeAll();
    });
  }

  /** Ends the run with `error` (the first one wins); what was written stays. */
  fail(error: unknown): void {
    if (error instanceof BudgetReachedError) {
      this.budgetReached ??= error;
      return;
    }
    this.fatal ??= error;
    this.stop.abort();
  }

  /** A sample has ended: its group is scored (a group scorer's) and written once all K have. */
  async record(slot: Slot, ended: Outcome | { unscored: Member }): Promise<void> {
    const ends = this.groups.add(slot.task.id, slot.sample, ended);
    if (!ends) return;
    const outcomes = await this.scoreGroup(slot.task, ends);
    if (!outcomes) return;
    const group = buildGroup(slot.task, outcomes, this.origin);
    this.file?.append(group);
    this.settled(slot.task, 'release');
    const { totals } = this;
    totals.groups++;
    for (const o of outcomes) {
      if ('reward' in o) {
        totals.trajectories++;
        totals.rewardSum += o.reward;
      } else totals.failed++;
    }
    this.events.onGroup?.(group, slot.task, totals);
  }

  /** A whole group's samples, its unscored members scored by the group scorer; undefined once stopped. */
  private async scoreGroup(
    task: Task,
    ends: ReadonlyArray<Outcome | { unscored: Member }>,
  ): Promise<Outcome[] | undefined> {
    const members = ends.flatMap((e) => ('unscored' in e ? [e.unscored] : []));
    const score = this.plan.score;
    if (members.length === 0 || !isGroupScorer(score)) return ends as Outcome[];
    const { stop, scoring } = this;
    await scoring.acquire();
    if (stop.signal.aborted) return void scoring.release('ok');
    const results = await score.scoreGroup(task, members, stop.signal).finally(() => scoring.release('ok'));
    this.settled(task, score.requests ?? 0);
    if (stop.signal.aborted) return undefined;
    if (results.length !== members.length)
      throw new CliError(
        `internal: the group scorer gave ${results.length} results for ${members.length} members`,
      );
    const bySample = new Map(members.map((m, i) => [m.sample, outcomeOf(m.trajectory, results[i]!)]));
    return ends.map((e) => ('unscored' in e ? bySample.get(e.unscored.sample)! : e));
  }

  /**
   * Under a budget: the reservation of every request the task's group will make (its samples, its
   * judge's verdicts), made by its first sample before anything of the group is sent and shared by
   * the others. A group is sampled whole or not at all: one cut short would be paid and thrown away.
   */
  private reservationOf(task: Task): Promise<Reservation> | undefined {
    if (!this.budget) return undefined;
    let reservation = this.reservations.get(task.id);
    if (!reservation) {
      const { groupSize, score } = this.plan;
      const judged = score.requests ?? 0;
      const requests = groupSize + (isGroupScorer(score) ? judged : groupSize * judged);
      reservation = this.budget.reserve(requests, this.stop.signal);
      reservation.catch(() => undefined);
      this.reservations.set(task.id, reservation);
    }
    return reservation;
  }

  /** Requests of the task's group answered (`n`), or the group ended ('release'). */
  private settled(task: Task, n: number | 'release'): void {
    const reservation = this.reservations.get(task.id);
    if (!reservation || n === 0) return;
    void reservation.then(
      (r) => (n === 'release' ? r.release() : r.answered(n)),
      () => undefined,
    );
  }

  /** The 429 hook: the turn given back with the server's pause, and taken again (throttle.ts). */
  async throttled(permit: Permit, retryAfterMs: number | undefined): Promise<void> {
    const decision = this.throttle.decide(retryAfterMs);
    permit.release('throttled', decision.giveUp ? 0 : decision.pauseMs);
    this.totals.throttled++;
    this.events.onSample?.('throttled', this.totals);
    if (decision.giveUp) throw this.throttle.notLifting();
    await permit.again();
    if (this.stop.signal.aborted) throw this.stop.signal.reason;
  }

  /** One slot: sampled (retried as every request is), scored, recorded. */
  async runSlot(slot: Slot, permit: Permit): Promise<void> {
    const { plan, totals, events } = this;
    const endTrace = events.traceExchange?.({ ...plan.params });
    const request = {
      model: plan.model,
      task: slot.task,
      params: plan.params,
      seed: sampleSeed(plan.seed, slot.task.id, slot.sample),
    };
    const reserving = this.reservationOf(slot.task);
    if (reserving) {
      // Waited for without holding a turn: the groups it waits on may need turns to finish (a 429
      // gives a turn back and takes one again).
      permit.release('unused');
      try {
        await reserving;
      } catch (error) {
        // The budget has no room for its group (nothing of it was sent), or the run stopped meanwhile.
        if (!this.stop.signal.aborted) this.fail(error);
        return;
      }
      await permit.again();
      if (this.stop.signal.aborted) return;
    }
    let sampled: Awaited<ReturnType<typeof sampleOnce>>;
    try {
      sampled = await sampleOnce(this.client, this.where, request, this.stop.signal, (ms) =>
        this.throttled(permit, ms),
      );
    } catch (error) {
      await endTrace?.({ error });
      permit.release('failed');
      totals.requests++;
      events.onSample?.('failed', totals);
      if (!this.stop.signal.aborted) this.fail(error);
      return;
    }
    this.throttle.answered();
    this.settled(slot.task, 1);
    permit.release(sampled.ok ? 'ok' : 'failed');
    totals.requests++;
    events.onSample?.(sampled.ok ? 'ok' : 'failed', totals);
    if (!sampled.ok) return this.record(slot, { failure: sampled.reason });
    await endTrace?.(sampled);
    const trajectory = this.trajectoryOf(slot, sampled.sample);
    if (isGroupScorer(this.plan.score))
      return this.record(slot, {
        unscored: { sample: slot.sample, trajectory, reply: sampled.sample.reply },
      });
    await this.score(slot, trajectory, sampled.sample.reply, this.plan.score);
  }

  /** The trajectory of a sample, as scorers are given it and groups hold it, before its reward. */
  private trajectoryOf(slot: Slot, sample: Sample): Record<string, unknown> {
    return {
      messages_and_choices: [...slot.task.messages, sample.choice],
      ...(slot.task.tools ? { tools: slot.task.tools } : {}),
      metadata: { task_id: slot.task.id, sample: slot.sample },
    };
  }

  /** The reward of one sample, within the scoring limit; a reward that cannot be had fails the trajectory. */
  private async score(
    slot: Slot,
    trajectory: Record<string, unknown>,
    reply: string,
    score: Scorer,
  ): Promise<void> {
    const { stop, scoring } = this;
    await scoring.acquire();
    if (stop.signal.aborted) return scoring.release('ok');
    const scored = await score(slot.task, trajectory, reply, stop.signal).finally(() =>
      scoring.release('ok'),
    );
    this.settled(slot.task, score.requests ?? 0);
    if (stop.signal.aborted) return;
    await this.record(slot, outcomeOf(trajectory, scored));
  }
}

function* slotsOf(plan: RolloutPlan, run: Rollout): Generator<Slot> {
  for (const task of plan.tasks)
    for (let sample = 0; sample < plan.groupSize; sample++) {
      // At a task's first sample only: a group begun is sampled whole (its requests are reserved).
      if (sample === 0 && run.budgetReached) return;
      yield { task, sample };
    }
}

export async function runRollouts(
  ctx: Context,
  client: OpenAI,
  plan: RolloutPlan,
  file: Pick<GroupFile, 'append'> | undefined,
  signal: AbortSignal,
  events: RolloutEvents = {},
): Promise<RolloutTotals> {
  await plan.score.prepare?.();
  const run = new Rollout(ctx, client, plan, file, events);
  const onAbort = () => run.stop.abort();
  signal.addEventListener('abort', onAbort, { once: true });
  try {
    await runSlots(slotsOf(plan, run), run.limit, run.stop.signal, (slot, permit) =>
      run.runSlot(slot, permit).catch((error) => run.fail(error)),
    );
  } finally {
    run.limit.close();
    run.scoring.close();
    signal.removeEventListener('abort', onAbort);
    await plan.score.close?.();
  }
  if (run.fatal) throw run.fatal;
  if (run.budgetReached) throw run.budgetReached;
  return run.totals;
}
