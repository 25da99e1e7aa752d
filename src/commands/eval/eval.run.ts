// `aip eval`: every input checked first (the checkpoints, the tasks, the reward: nothing is sampled
// when one is wrong), then each checkpoint sampled on every task with the same seed, so that the
// comparison is paired: a task's sample k is the same request under each checkpoint but for the model.
// Ctrl-C stops at once, reporting nothing: a table over part of the tasks would be read as the whole.
// On GitHub Actions, the results are step outputs and a summary too (eval/ci-report.ts), also when the
// eval fails on them.

import type { Spent } from '../../budget/budget.js';
import { modelsAsked, spentSince, startBudget } from '../../budget/start.js';
import { parseParams } from '../../chat/params.js';
import { type RangeFlags, selectCheckpoints } from '../../checkpoints/select.js';
import { githubActions } from '../../ci/github.js';
import type { Context } from '../../context.js';
import { BudgetReachedError, CliError, InterruptedError, UsageError } from '../../errors/errors.js';
import { reportEval } from '../../eval/ci-report.js';
import { DEFAULT_EVAL_GROUP_SIZE, DEFAULT_EVAL_SEED, DEFAULT_PASS_THRESHOLD } from '../../eval/defaults.js';
import { type CheckpointRun, evaluateCheckpoint } from '../../eval/evaluate.js';
import { checkReportName, plotEval, saveEval, writeEvalReport } from '../../eval/outputs.js';
import { type CheckpointResult, type EvalReport, evalDocument, printEval } from '../../eval/report.js';
import { checkpointStats, taskDiffs } from '../../eval/statistics.js';
import { plural } from '../../output/plural.js';
import { rolloutClient, rolloutPlan, rolloutsModel, traceHook } from '../../rollouts/setup.js';
import { describeShard, tasksOfShard } from '../../rollouts/shard.js';
import { readTasks } from '../../rollouts/tasks.js';
import type { EvalOptions } from './eval.js';

/**
 * The checkpoints to evaluate, each once: --model as given, ranges (name:step*, --every, --last,
 * --steps) and name:best… / name:latest resolved by listing the models' checkpoints
 * (checkpoints/select.ts), the only requests before the samples.
 */
async function checkpointsOf(
  ctx: Context,
  refs: readonly string[],
  flags: RangeFlags,
): Promise<Array<{ model: string; uri: string }>> {
  const checkpoints: Array<{ model: string; uri: string }> = [];
  for (const model of await selectCheckpoints(ctx, refs, flags))
    checkpoints.push({ model, uri: await rolloutsModel(ctx, model) });
  checkpoints.forEach((c, i) => {
    const earlier = checkpoints.findIndex((other) => other.uri === c.uri);
    if (earlier < i)
      throw new UsageError(
        checkpoints[earlier]!.model === c.model
          ? `${c.model} is selected twice (by a range, :best or :latest and another --model): give each checkpoint once`
          : `--model ${checkpoints[earlier]!.model} and --model ${c.model} are the same checkpoint (${c.uri}): give each once`,
      );
  });
  return checkpoints;
}

export async function runEvalCommand(ctx: Context, options: EvalOptions): Promise<void> {
  const { io } = ctx;
  if (options.plot && ctx.json) throw new UsageError('--plot draws a chart; it does not combine with --json');
  // The report's name says its format: a wrong one costs no request.
  if (options.report !== undefined) await checkReportName(options.report);
  const checkpoints = await checkpointsOf(ctx, options.model, options);
  if (options.diff && checkpoints.length < 2)
    throw new UsageError('--diff compares checkpoints: give --model at least twice (or a range, name:step*)');
  const params = parseParams([...(options.option ?? []), ...(options.o ?? [])]);
  const allTasks = await readTasks(ctx, options.tasks);
  // A shard's tasks only (rollouts/shard.ts): the report, the pass rate and --fail-under are about
  // them. Every shard samples with the same seed (eval's default is fixed), so a task is sampled as an
  // unsharded eval samples it.
  const shard = options.shard ? describeShard(options.shard) : undefined;
  const tasks = options.shard ? tasksOfShard(allTasks, options.shard) : allTasks;
  if (shard && tasks.length === 0)
    throw new CliError(
      `shard ${shard} holds none of the ${allTasks.length} tasks (a split by task id leaves one empty now and then): nothing to evaluate; give fewer shards`,
    );
  const seed = options.seed ?? DEFAULT_EVAL_SEED;
  const passThreshold = options.passThreshold ?? DEFAULT_PASS_THRESHOLD;
  const groupSize = options.groupSize ?? DEFAULT_EVAL_GROUP_SIZE;
  // Made once, before any request: a reward that cannot be computed (a task without a reference, a
  // bad regex) is refused here.
  const plan = rolloutPlan(ctx, { ...options, groupSize, params, seed, model: checkpoints[0]!.uri, tasks });
  const budget = startBudget(
    ctx,
    options,
    modelsAsked(
      checkpoints.map((c) => c.uri),
      options.reward,
    ),
  );
  const client = await rolloutClient(ctx);
  // Said on stderr as the eval starts, and in the report's summary.
  const sampledAs = `${plural(tasks.length, 'task')}${shard ? ` (shard ${shard} of ${allTasks.length})` : ''}, ${plural(groupSize, 'sample')} each`;
  io.info(
    `Evaluating ${plural(checkpoints.length, 'checkpoint')} on ${sampledAs}, seed ${seed} (the same for every checkpoint)`,
  );

  const runs: CheckpointRun[] = [];
  const spends: Spent[] = [];
  const { signal, release } = ctx.interruptible();
  try {
    for (const checkpoint of checkpoints) {
      const traceExchange = await traceHook(ctx, options, checkpoint.uri);
      ctx.history.note({ model: checkpoint.uri });
      const before = { ...budget.spent };
      const run = await evaluateCheckpoint(
        ctx,
        client,
        { ...plan, model: checkpoint.uri },
        checkpoint.model,
        signal,
        traceExchange,
        options.report !== undefined,
      ).catch((error: unknown) => {
        // A table over part of the tasks would be read as the whole: nothing is reported.
        if (error instanceof BudgetReachedError)
          error.hint = `nothing is reported for part of a task set (${runs.length} of ${checkpoints.length} checkpoints done); run the eval again with a larger budget`;
        throw error;
      });
      spends.push(spentSince(before, budget.spent));
      if (signal.aborted) {
        io.err(
          `Stopped while evaluating ${checkpoint.model} (${runs.length} of ${checkpoints.length} checkpoints done); nothing is reported for part of a task set`,
        );
        throw new InterruptedError(undefined, ctx.stopSignal ?? 'SIGINT');
      }
      runs.push(run);
    }
  } finally {
    release();
  }

  const results: CheckpointResult[] = checkpoints.map((c, i) => ({
    ...c,
    ...checkpointStats(runs[i]!.tasks.values(), passThreshold),
    spent: spends[i]!,
  }));
  const diff = options.diff
    ? taskDiffs(
        tasks.map((t) => t.id),
        runs.map((r) => r.tasks),
      )
    : undefined;
  const report: EvalReport = {
    seed,
    pass_threshold: passThreshold,
    checkpoints: results,
    ...(diff ? { diff: { tasks: diff.changed, counts: diff.counts } } : {}),
  };
  const document = {
    ...evalDocument(report),
    ...(shard ? { shard, shard_tasks: tasks.length, tasks_in_file: allTasks.length } : {}),
  };
  if (ctx.json) io.json(document);
  else {
    if (shard) io.out(`Shard ${shard}: ${tasks.length} of the ${allTasks.length} tasks`);
    printEval(io, report);
    if (options.plot) await plotEval(ctx, report);
  }
  // --save: the document --json prints, kept in a file (for aip compare), after it is printed: a file
  // that cannot be written loses nothing the terminal shows.
  if (options.save !== undefined) saveEval(options.save, document);

  const failure = evalFailure(results, runs, options.failUnder);
  if (options.report !== undefined) {
    const summary = [`${sampledAs}, scored with ${plan.reward}.`, ...(failure ? [`Failed: ${failure}`] : [])];
    await writeEvalReport(options.report, report, runs, tasks, summary);
    io.info(`Wrote the report to ${options.report}`);
  }
  const gha = githubActions(ctx);
  if (gha) reportEval(gha, { report, tasks: tasks.length, groupSize, failUnder: options.failUnder, failure });
  if (failure) throw new CliError(failure);
}

/** Why the eval fails (exit 1): a checkpoint with no scored sample, or the last under --fail-under. */
function evalFailure(
  results: readonly CheckpointResult[],
  runs: readonly CheckpointRun[],
  failUnder: number | undefined,
): string | undefined {
  const unscored = results.findIndex((r) => r.mean === null);
  if (unscored >= 0)
    return `no sample of ${results[unscored]!.model} was scored: ${runs[unscored]!.firstFailure ?? 'every sample failed'}`;
  const last = results.at(-1)!;
  if (failUnder !== undefined && last.mean! < failUnder)
    return `${last.model}: mean reward ${last.mean!.toFixed(3)} is under --fail-under ${failUnder}`;
  return undefined;
}
