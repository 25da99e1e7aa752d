// `aip rollouts`: the tasks checked, the reward made ready (every task's reference, or the command),
// then the run (src/rollouts/run.ts), its groups appended to the file as each is complete; on Ctrl-C
// or a failure, what was written stays and the message says how to carry on. On GitHub Actions, a run
// that wrote its groups is reported as step outputs and a summary (rollouts/ci-report.ts).

import { resolve } from 'node:path';
import { describeSpent, modelsAsked, startBudget } from '../../budget/start.js';
import { parseParams } from '../../chat/params.js';
import { githubActions } from '../../ci/github.js';
import type { Context } from '../../context.js';
import { CliError, InterruptedError, UsageError } from '../../errors/errors.js';
import { plural, trajectories } from '../../output/plural.js';
import { redactUrlSecrets } from '../../output/secrets.js';
import { FailureReasons, reportRollouts } from '../../rollouts/ci-report.js';
import {
  openGroupFile,
  type PreviousGroups,
  readGroupFile,
  resumeTerms,
  sameSampling,
} from '../../rollouts/group-file.js';
import { describeTotals, rolloutsWithProgress } from '../../rollouts/progress-report.js';
import type { RolloutTotals } from '../../rollouts/run.js';
import { rolloutClient, rolloutPlan, rolloutsModel, traceHook } from '../../rollouts/setup.js';
import { describeShard, tasksOfShard } from '../../rollouts/shard.js';
import { readTasks, type Task } from '../../rollouts/tasks.js';
import type { RolloutsOptions } from './rollouts.js';

/** The command that carries on this run: every flag that shapes its groups, and --resume. */
function resumeArgs(
  options: RolloutsOptions,
  output: string,
  params: Record<string, unknown>,
  seed: number,
): string[] {
  const args = ['rollouts', '--model', options.model, '--tasks', options.tasks, '--output', output];
  if (options.reward) args.push('--reward', options.reward);
  if (options.rubric !== undefined) args.push('--rubric', options.rubric);
  if (options.judgeGroup) args.push('--judge-group');
  if (options.rewardCmd !== undefined) args.push('--reward-cmd', options.rewardCmd);
  if (options.rewardServer !== undefined) args.push('--reward-server', options.rewardServer);
  if (options.rewardWorkers !== undefined) args.push('--reward-workers', String(options.rewardWorkers));
  // A token in the URL's query is a secret: the command printed masks it (give it again, or move it
  // to AIP_REWARD_KEY), as the groups file's metadata does.
  if (options.rewardUrl !== undefined) args.push('--reward-url', redactUrlSecrets(options.rewardUrl));
  if (options.rewardTimeout !== undefined) args.push('--reward-timeout', String(options.rewardTimeout));
  if (options.sandbox) args.push('--sandbox');
  if (options.sandboxCpu !== undefined) args.push('--sandbox-cpu', String(options.sandboxCpu));
  if (options.sandboxMemory !== undefined) args.push('--sandbox-memory', String(options.sandboxMemory));
  if (options.groupSize !== undefined) args.push('-K', String(options.groupSize));
  if (options.temperature !== undefined) args.push('--temperature', String(options.temperature));
  if (options.maxTokens !== undefined) args.push('--max-tokens', String(options.maxTokens));
  for (const [key, value] of Object.entries(params))
    args.push('--option', `${key}=${typeof value === 'string' ? value : JSON.stringify(value)}`);
  if (options.concurrency !== undefined) args.push('--concurrency', String(options.concurrency));
  if (options.trace) args.push('--trace');
  if (options.shard) args.push('--shard', describeShard(options.shard));
  // A budget is this invocation's (budget/budget.ts): the command that carries on has one as large.
  if (options.maxCost !== undefined) args.push('--max-cost', String(options.maxCost));
  if (options.maxTotalTokens !== undefined) args.push('--max-total-tokens', String(options.maxTotalTokens));
  args.push('--seed', String(seed), '--resume');
  return args;
}

/** -o: key=value is a request parameter, anything else the groups file (at most one). */
export function splitDashO(values: readonly string[] = []): { file?: string; params: string[] } {
  const params = values.filter((v) => /^[A-Za-z_][\w.-]*=/.test(v));
  const files = values.filter((v) => !params.includes(v));
  if (files.length > 1)
    throw new UsageError(`-o names ${files.length} groups files (${files.join(', ')}): give one`);
  return { file: files[0], params };
}

export async function runRolloutsCommand(ctx: Context, options: RolloutsOptions): Promise<void> {
  const { io } = ctx;
  const dashO = splitDashO(options.o);
  if (dashO.file && options.output && dashO.file !== options.output)
    throw new UsageError(`-o ${dashO.file} and --output ${options.output}: give the groups file once`);
  const output = options.output ?? dashO.file;
  if ((options.resume || options.force) && !output)
    throw new UsageError(
      `--${options.resume ? 'resume' : 'force'} is about a groups file: give it with -o FILE`,
    );
  if (options.resume && options.force)
    throw new UsageError('--resume continues the file, --force starts it again: not both');
  const params = { ...parseParams([...(options.option ?? []), ...dashO.params]) };
  const allTasks = await readTasks(ctx, options.tasks);
  // A shard's tasks: those whose id hashes to it (rollouts/shard.ts); the rest is other machines'.
  const tasks = options.shard ? tasksOfShard(allTasks, options.shard) : allTasks;
  // Everything is checked before the groups file is created, emptied or cut: what it holds already,
  // the plan (the reward of every task), the key and the trace settings.
  const previous = output
    ? readGroupFile(output, { resume: options.resume === true, force: options.force === true })
    : undefined;
  // Only now, the files checked: m:best and m:latest are resolved by listing the model's checkpoints.
  const model = await rolloutsModel(ctx, options.model);
  // A resumed file keeps its seed, model and group size: the rest of it must be sampled the same way.
  const { origin, groupSize: size, groups: groupsBefore } = resumeTerms(previous, { ...options, model });
  if (options.shard) checkShardRun(options, output, previous, allTasks.length, tasks, origin !== undefined);
  const seed = origin?.rollout_seed ?? options.seed ?? Math.floor(ctx.deps.random() * 2 ** 31);
  const pending = tasks.filter((t) => !previous?.done.has(t.id));
  const plan = rolloutPlan(ctx, {
    ...options,
    groupSize: options.groupSize ?? size,
    params,
    seed,
    model,
    tasks: pending,
  });
  if (origin) sameSampling(output!, origin, plan);
  const budget = startBudget(ctx, options, modelsAsked([model], options.reward));
  ctx.history.note({ model, ...(output ? { ref: resolve(output) } : {}) });
  const client = await rolloutClient(ctx);
  const traceExchange = await traceHook(ctx, options, model);
  const file = previous ? openGroupFile(previous, (message) => io.warn(message)) : undefined;
  try {
    if (options.shard && tasks.length === 0)
      io.info(
        `shard ${describeShard(options.shard)} holds none of the ${allTasks.length} tasks (a split by task id leaves one empty now and then): ${output ? `${output} is left empty, for aip rollouts merge` : 'nothing to sample'}`,
      );
    if (file && file.done.size > 0)
      io.info(
        `${output}: ${file.done.size} of ${tasks.length} tasks done; sampling the other ${pending.length}`,
      );
    const started = Date.now();
    const sink = file ?? { append: (group: Record<string, unknown>) => io.jsonLine(group) };
    const { signal, release } = ctx.interruptible({ orStdoutClosed: !file });
    const resume = ctx.commandLine(resumeArgs(options, output ?? '-', params, seed));
    let totals: RolloutTotals;
    const failures = new FailureReasons();
    try {
      totals = await rolloutsWithProgress(ctx, client, plan, sink, signal, {
        label: 'rollouts',
        traceExchange,
        onGroup: (group, task) => failures.add(group, task),
      });
    } catch (error) {
      if (file && error instanceof CliError) {
        const carryOn = `the groups written so far are in ${output}; carry on with: ${resume}`;
        error.hint = error.hint ? `${error.hint}; ${carryOn}` : carryOn;
      }
      throw error;
    } finally {
      release();
    }
    const elapsed = Date.now() - started;
    if (signal.aborted) {
      if (io.outputClosed) return;
      io.err(
        `Stopped after ${totals.groups} of ${pending.length} groups.${file ? ` Carry on with: ${resume}` : ''}`,
      );
      throw new InterruptedError();
    }
    const summary = {
      model,
      tasks: tasks.length,
      groups_file: output ?? null,
      groups_before: groupsBefore,
      groups_written: totals.groups,
      trajectories: totals.trajectories,
      failed: totals.failed,
      mean_reward: totals.trajectories > 0 ? totals.rewardSum / totals.trajectories : null,
      throttled: totals.throttled,
      seed,
      ...(options.shard ? { shard: describeShard(options.shard), tasks_in_file: allTasks.length } : {}),
      spent: budget.spent,
      elapsed_s: elapsed / 1000,
    };
    if (ctx.json && file) io.json(summary);
    io.info(
      `Wrote ${plural(totals.groups, 'group')} (${trajectories(totals.trajectories)}${totals.failed ? `, ${totals.failed} failed` : ''})${output ? ` to ${output}` : ''}: ${describeTotals(totals, elapsed)}`,
    );
    io.info(`Spent ${describeSpent(budget.spent)}`);
    const gha = githubActions(ctx);
    if (gha)
      reportRollouts(gha, {
        model,
        tasks: tasks.length,
        output,
        groupsBefore,
        totals,
        seed,
        elapsedMs: elapsed,
        failures,
      });
    if (totals.failed > 0 && totals.trajectories === 0)
      throw new CliError('every trajectory failed: the groups hold no rewards (their exceptions say why)');
  } finally {
    file?.close();
  }
}

/**
 * A sharded run: every shard must sample with the same seed (one drawn per machine would give shards
 * that no merge can join into an unsharded run's file), and a resumed file must be this shard's.
 */
function checkShardRun(
  options: RolloutsOptions,
  output: string | undefined,
  previous: PreviousGroups | undefined,
  taskCount: number,
  shardTasks: readonly Task[],
  resumed: boolean,
): void {
  const shard = describeShard(options.shard!);
  if (options.seed === undefined && !resumed)
    throw new UsageError(
      `--shard ${shard} needs --seed: every shard of a run must sample with the same seed (give each machine the same --seed N)`,
    );
  if (!previous || previous.done.size === 0) return;
  const mine = new Set(shardTasks.map((t) => t.id));
  const stranger = [...previous.done.keys()].find((id) => !mine.has(id));
  if (stranger !== undefined)
    throw new UsageError(
      `${output} holds the group of task ${stranger}, which is not in shard ${shard} of the ${taskCount} tasks: resume it with the --shard it was sampled with (or the tasks file it was sampled from)`,
    );
}
