// `aip reward test`: a reward tried on a task set before a run pays for it. Every input is checked
// first (the tasks, the replies file line by line, the reward: nothing is scored when one is wrong).
// With --model, each task is sampled K times through the run `aip rollouts` makes (no groups file);
// with --replies, the given replies are scored offline: nothing is sent, no key is needed. Each reward
// call is timed on its own. The report (rollouts/reward-test.ts) goes to stdout, --json as one
// document; any failed sample makes the exit status 1, after the report.

import { lineLimitFrom } from '../../api/limits.js';
import { parseParams } from '../../chat/params.js';
import { annotateProblems } from '../../ci/problems.js';
import type { Context } from '../../context.js';
import { CliError, InterruptedError, UsageError } from '../../errors/errors.js';
import { openSource } from '../../fs/open-source.js';
import { DEFAULT_CONCURRENCY } from '../../rollouts/defaults.js';
import { rolloutsWithProgress } from '../../rollouts/progress-report.js';
import { type RewardResult, unwritableScore } from '../../rollouts/reward-command.js';
import {
  buildReport,
  type GivenReplies,
  groupReplies,
  outcomeOfGroup,
  type RewardTestReport,
  replyLineIssues,
  reportLines,
  type TaskOutcome,
  timedScorer,
} from '../../rollouts/reward-test.js';
import { type GroupScorer, isGroupScorer, type Member, type Scorer } from '../../rollouts/run.js';
import { rolloutClient, rolloutPlan, rolloutsModel, traceHook } from '../../rollouts/setup.js';
import { readTasks, type Task } from '../../rollouts/tasks.js';
import { checkDocuments, problemLines, requireDocuments } from '../../validate/check-file.js';
import type { RewardTestOptions } from './test.js';

/** The model string of an offline plan: nothing is sampled, so no checkpoint is named. */
const OFFLINE_MODEL = 'offline:replies';

/** The flags about sampling, which --replies (nothing sampled) does not take. */
const SAMPLING_ONLY = [
  ['groupSize', '-K/--group-size'],
  ['temperature', '--temperature'],
  ['maxTokens', '--max-tokens'],
  ['option', '--option'],
  ['seed', '--seed'],
  ['trace', '--trace'],
] as const;

export async function runRewardTest(ctx: Context, options: RewardTestOptions): Promise<void> {
  if (options.model !== undefined && options.replies !== undefined)
    throw new UsageError('--model samples fresh replies, --replies scores given ones: give one, not both');
  if (options.model === undefined && options.replies === undefined)
    throw new UsageError(
      'give --model MODEL to score fresh samples of a checkpoint, or --replies FILE to score given replies',
    );
  const report =
    options.replies !== undefined
      ? await offline(ctx, options, options.replies)
      : await sampled(ctx, options, options.model!);
  if (ctx.json) ctx.io.json(report);
  else for (const line of reportLines(report)) ctx.io.out(line);
  if (report.failed > 0)
    throw new CliError(
      `${report.failed} of ${report.samples} sample${report.samples === 1 ? '' : 's'} failed (${ctx.json ? 'under "failures"' : 'listed above'})`,
    );
}

/** Fresh samples: K per task, through the run aip rollouts makes, each reward call timed. */
async function sampled(ctx: Context, options: RewardTestOptions, ref: string): Promise<RewardTestReport> {
  const params = parseParams(options.option ?? []);
  const tasks = await readTasks(ctx, options.tasks);
  // After the tasks are checked: m:best and m:latest are resolved by listing the model's checkpoints.
  const model = await rolloutsModel(ctx, ref);
  const seed = options.seed ?? Math.floor(ctx.deps.random() * 2 ** 31);
  // Made before any request: a reward that cannot be computed (a task without a reference) is refused.
  const plan = rolloutPlan(ctx, { ...options, params, seed, model, tasks });
  const durations: number[] = [];
  const client = await rolloutClient(ctx);
  const traceExchange = await traceHook(ctx, options, model);
  ctx.io.info(
    `Sampling ${plan.groupSize} repl${plan.groupSize === 1 ? 'y' : 'ies'} for each of ${tasks.length} task${tasks.length === 1 ? '' : 's'} (seed ${seed}), scored with ${plan.reward}`,
  );
  const outcomes = new Map<string, TaskOutcome>();
  const { signal, release } = ctx.interruptible();
  try {
    await rolloutsWithProgress(
      ctx,
      client,
      { ...plan, score: timedScorer(plan.score, durations, () => performance.now()) },
      undefined,
      signal,
      {
        label: 'reward test',
        traceExchange,
        onGroup: (group, task) => outcomes.set(task.id, outcomeOfGroup(task.id, group)),
      },
    );
  } finally {
    release();
  }
  if (signal.aborted) {
    ctx.io.err(
      `Stopped after ${outcomes.size} of ${tasks.length} tasks; nothing is reported for part of a task set`,
    );
    throw new InterruptedError(undefined, ctx.stopSignal ?? 'SIGINT');
  }
  return buildReport({
    mode: 'sampled',
    reward: plan.reward,
    outcomes: tasks.flatMap((t) => outcomes.get(t.id) ?? []),
    durations,
  });
}

/**
 * The replies of a file, each line checked against the tasks (file:line: problem, every one listed),
 * or a usage error (exit 2) before anything is scored.
 */
async function readReplies(ctx: Context, path: string, tasks: readonly Task[]): Promise<GivenReplies[]> {
  const known = new Set(tasks.map((t) => t.id));
  const checked = await checkDocuments(
    openSource(path, ctx.io, lineLimitFrom(ctx.env)),
    (value) => replyLineIssues(value, known),
    { collect: true },
  );
  requireDocuments(checked, 'replies');
  annotateProblems(ctx.io, checked, 'invalid reply');
  if (checked.problemCount > 0) {
    for (const line of problemLines(checked)) ctx.io.err(line);
    throw new UsageError(
      `${checked.name}: ${checked.problemCount} problem${checked.problemCount === 1 ? '' : 's'} in ${checked.documents} line${checked.documents === 1 ? '' : 's'}; nothing was scored`,
    );
  }
  return groupReplies(checked.values);
}

/** The trajectory a reward is given for a reply: the task's conversation and the reply as its answer. */
function trajectoryOf(task: Task, reply: string, sample: number): Record<string, unknown> {
  return {
    messages_and_choices: [
      ...task.messages,
      { finish_reason: 'stop', index: 0, message: { role: 'assistant', content: reply }, logprobs: null },
    ],
    ...(task.tools ? { tools: task.tools } : {}),
    metadata: { task_id: task.id, sample },
  };
}

/** Given replies, scored offline: nothing is sampled or sent (a reward service is the reward's own). */
async function offline(ctx: Context, options: RewardTestOptions, path: string): Promise<RewardTestReport> {
  const sampling = SAMPLING_ONLY.filter(([key]) => options[key] !== undefined).map(([, flag]) => flag);
  if (sampling.length > 0)
    throw new UsageError(
      `${sampling.join(', ')}: about sampling, and --replies scores the replies given: leave ${sampling.length === 1 ? 'it' : 'them'} out`,
    );
  const tasks = await readTasks(ctx, options.tasks);
  const given = await readReplies(ctx, path, tasks);
  const byId = new Map(tasks.map((t) => [t.id, t]));
  const tested = given.map((g) => byId.get(g.task_id)!);
  const untested = tasks.length - tested.length;
  // The plan is made for its scorer alone (the reward of every tested task checked now); the model is
  // a stand-in, as nothing is sampled.
  const plan = rolloutPlan(ctx, { ...options, params: {}, seed: 0, model: OFFLINE_MODEL, tasks: tested });
  const replies = given.reduce((n, g) => n + g.replies.length, 0);
  ctx.io.info(
    `Scoring ${replies} repl${replies === 1 ? 'y' : 'ies'} of ${tested.length} task${tested.length === 1 ? '' : 's'} with ${plan.reward}${untested > 0 ? ` (${untested} task${untested === 1 ? '' : 's'} of ${options.tasks} with no reply: not tested)` : ''}`,
  );
  const durations: number[] = [];
  const score = timedScorer(plan.score, durations, () => performance.now());
  await score.prepare?.();
  const { signal, release } = ctx.interruptible();
  let outcomes: TaskOutcome[];
  try {
    outcomes = await scoreAll(given, byId, score, options.concurrency ?? DEFAULT_CONCURRENCY, signal);
  } finally {
    release();
    await plan.score.close?.();
  }
  if (signal.aborted) throw new InterruptedError(undefined, ctx.stopSignal ?? 'SIGINT');
  return buildReport({ mode: 'replies', reward: plan.reward, outcomes, durations });
}

/**
 * Every reply scored, `concurrency` calls at a time (a call scores a reply, or a whole task's replies
 * for a group scorer); a reward that cannot be had fails its sample only.
 */
async function scoreAll(
  given: readonly GivenReplies[],
  tasks: ReadonlyMap<string, Task>,
  score: Scorer | GroupScorer,
  concurrency: number,
  signal: AbortSignal,
): Promise<TaskOutcome[]> {
  const outcomes = given.map((g) => ({
    task_id: g.task_id,
    rewards: new Array<number | undefined>(g.replies.length),
    failures: [] as TaskOutcome['failures'],
  }));
  const settle = (i: number, sample: number, result: RewardResult) => {
    const reason = result.ok ? unwritableScore(result.scored) : result.reason;
    if (reason !== undefined) outcomes[i]!.failures.push({ sample, reason: `reward: ${reason}` });
    else outcomes[i]!.rewards[sample] = (result as { scored: { reward: number } }).scored.reward;
  };
  const members = (g: GivenReplies, task: Task): Member[] =>
    g.replies.map((reply, sample) => ({ sample, trajectory: trajectoryOf(task, reply, sample), reply }));
  const calls: Array<() => Promise<void>> = given.flatMap((g, i) => {
    const task = tasks.get(g.task_id)!;
    if (isGroupScorer(score))
      return [
        async () => {
          const results = await score.scoreGroup(task, members(g, task), signal);
          if (signal.aborted) return;
          for (const [sample, result] of results.entries()) settle(i, sample, result);
        },
      ];
    return members(g, task).map((m) => async () => {
      const result = await score(task, m.trajectory, m.reply, signal);
      if (!signal.aborted) settle(i, m.sample, result);
    });
  });
  let next = 0;
  let fatal: { error: unknown } | undefined;
  const worker = async () => {
    while (next < calls.length && !signal.aborted && !fatal) {
      try {
        await calls[next++]!();
      } catch (error) {
        // Not a reward that could not be had but a scorer that broke: the test stops, as a run would.
        fatal ??= { error };
        return;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, calls.length) }, worker));
  if (fatal) throw fatal.error;
  return outcomes.map((o) => ({
    task_id: o.task_id,
    rewards: o.rewards.filter((r): r is number => r !== undefined),
    failures: o.failures.sort((a, b) => a.sample - b.sample),
  }));
}
