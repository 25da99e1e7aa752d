// `aip train rl`: a new run is planned from the flags (everything checked before any request: the
// model, the tasks, the reward, the job's settings) and kept in its run directory; --resume DIR takes
// the plan from DIR/run.json instead. Then the loop (src/train/loop.ts), and the summary; on GitHub
// Actions, step outputs and a step summary too (src/train/ci-report.ts).

import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { modelsAsked, startBudget } from '../../budget/start.js';
import { parseParams } from '../../chat/params.js';
import { githubActions } from '../../ci/github.js';
import type { Context } from '../../context.js';
import { BudgetReachedError, CliError, InterruptedError, UsageError } from '../../errors/errors.js';
import { rlExperimentalConfig } from '../../jobs/job-config.js';
import { fullName } from '../../models/local-record.js';
import { type ModelRef, resolveModelArg } from '../../models/resolve.js';
import { rolloutPlan } from '../../rollouts/setup.js';
import { readTasks, type Task } from '../../rollouts/tasks.js';
import { reportRun } from '../../train/ci-report.js';
import type { SamplingSetup } from '../../train/iteration-rollouts.js';
import { trainLoop } from '../../train/loop.js';
import {
  createRunDir,
  defaultRunDir,
  openRunDir,
  type RunDir,
  type RunSampling,
} from '../../train/run-dir.js';
import { printRunSummary } from '../../train/summary.js';
import type { ResumeFlags, TrainRlOptions } from './rl.js';

function sha256Of(path: string): string {
  try {
    return createHash('sha256').update(readFileSync(path)).digest('hex');
  } catch (error) {
    throw new UsageError(`cannot read ${path} (${(error as NodeJS.ErrnoException).code})`);
  }
}

function samplingSetup(sampling: RunSampling, options: TrainRlOptions): SamplingSetup {
  return {
    groupSize: sampling.group_size,
    reward: sampling.reward,
    rubric: sampling.rubric,
    judgeGroup: sampling.judge_group,
    rewardCmd: sampling.reward_cmd,
    rewardServer: sampling.reward_server,
    // How many processes score side by side is not the plan either.
    rewardWorkers: options.rewardWorkers ?? sampling.reward_workers,
    rewardUrl: sampling.reward_url,
    rewardTimeout: sampling.reward_timeout,
    sandbox: sampling.sandbox,
    sandboxCpu: sampling.sandbox_cpu,
    sandboxMemory: sampling.sandbox_memory,
    temperature: sampling.temperature,
    maxTokens: sampling.max_tokens,
    // How fast, and whether traced, is not the plan: a resume may change them.
    concurrency: options.concurrency ?? sampling.concurrency,
    trace: options.trace,
    params: sampling.params,
  };
}

/** The reward made ready for every task now (a reference missing, a command not given): exit 2, nothing sent. */
function checkReward(ctx: Context, sampling: SamplingSetup, tasks: readonly Task[]): void {
  rolloutPlan(ctx, { ...sampling, seed: 0, model: 'check', tasks });
}

async function newRun(
  ctx: Context,
  options: TrainRlOptions,
): Promise<{ run: RunDir; model: ModelRef; tasks: Task[] }> {
  const missing = [
    ['--model', options.model],
    ['--tasks', options.tasks],
    ['--steps', options.steps],
  ].filter(([, value]) => value === undefined);
  if (missing.length > 0)
    throw new UsageError(
      `${missing.map(([flag]) => flag).join(', ')} ${missing.length === 1 ? 'is' : 'are'} needed for a new run (or --resume DIR to carry one on)`,
    );
  const model = resolveModelArg(ctx, options.model!);
  // Rollouts sample the model's checkpoints by name (wandb-artifact:///team/project/name:stepN).
  if (!model.entry)
    throw new UsageError(
      `${options.model} is not a model created here: train rl needs its name as well as its id (aip models create --name NAME --base-model B --return-existing remembers it)`,
    );
  if (options.tasks === '-')
    throw new UsageError('--tasks -: a run reads its tasks again on --resume, so they must be a file');
  const tasksPath = resolve(options.tasks!);
  const tasks = await readTasks(ctx, tasksPath);
  const sampling: RunSampling = {
    group_size: options.groupSize,
    reward: options.reward,
    rubric: options.rubric === undefined ? undefined : resolve(options.rubric),
    judge_group: options.judgeGroup,
    reward_cmd: options.rewardCmd,
    reward_server: options.rewardServer,
    reward_workers: options.rewardWorkers,
    reward_url: options.rewardUrl,
    reward_timeout: options.rewardTimeout,
    sandbox: options.sandbox,
    sandbox_cpu: options.sandboxCpu,
    sandbox_memory: options.sandboxMemory,
    temperature: options.temperature,
    max_tokens: options.maxTokens,
    concurrency: options.concurrency,
    params: parseParams([...(options.option ?? []), ...(options.o ?? [])]),
  };
  checkReward(ctx, samplingSetup(sampling, options), tasks);
  const experimental = rlExperimentalConfig(ctx, options);
  if (options.logSplit !== undefined && !options.logSplit.trim())
    throw new UsageError('--log-split must not be empty');
  const name = fullName(model.entry);
  // The budget refused (a --max-cost without prices) before the run directory is made.
  budgetOf(ctx, options, name, sampling.reward);
  const run = createRunDir(options.runDir ?? defaultRunDir(model.entry.name, new Date()), {
    version: 1,
    created_at: new Date().toISOString(),
    model: { id: model.id, name, base_url: ctx.serviceUrl('training') },
    tasks: { path: tasksPath, sha256: sha256Of(tasksPath), count: tasks.length },
    steps: options.steps!,
    seed: options.seed ?? Math.floor(ctx.deps.random() * 2 ** 31),
    sampling,
    experimental_config: experimental,
    log_split: options.logSplit ?? null,
    iterations: [],
  });
  ctx.io.info(`Training ${name} for ${run.state.steps} iterations; the run is kept in ${run.dir}`);
  return { run, model, tasks };
}

/** The invocation's meter (budget/start.ts): the run's checkpoints are asked, and its judge. */
function budgetOf(ctx: Context, options: TrainRlOptions, name: string, reward: string | undefined) {
  return startBudget(ctx, options, modelsAsked([`wandb-artifact:///${name}`], reward));
}

/** "a, b and c". */
const inWords = (items: readonly string[]) =>
  items.length < 2 ? items.join('') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;

async function resumedRun(
  ctx: Context,
  dir: string,
  options: TrainRlOptions,
  flags: ResumeFlags,
): Promise<{ run: RunDir; model: ModelRef; tasks: Task[] }> {
  // A resumed run has its plan, and these would contradict it.
  const given = flags.plan.filter(([key]) => options[key] !== undefined).map(([, flag]) => flag);
  if (given.length > 0)
    throw new UsageError(
      `--resume takes the plan from ${dir}/run.json: ${given.join(', ')} cannot change it (${inWords(flags.allowed)} can be given)`,
    );
  const run = openRunDir(dir);
  const { state } = run;
  const baseUrl = ctx.serviceUrl('training');
  if (state.model.base_url && state.model.base_url !== baseUrl)
    throw new UsageError(
      `${run.dir} is a run against ${state.model.base_url}, not ${baseUrl}: resume it with --base-url ${state.model.base_url} (or its profile)`,
    );
  if (options.steps !== undefined) {
    if (options.steps < state.iterations.length)
      throw new UsageError(
        `--steps ${options.steps}: the run has begun ${state.iterations.length} iterations already`,
      );
    state.steps = options.steps;
  }
  if (sha256Of(state.tasks.path) !== state.tasks.sha256)
    throw new UsageError(
      `${state.tasks.path} has changed since the run began (its sha256 differs): the iterations would not sample the same tasks; start a new run`,
    );
  const tasks = await readTasks(ctx, state.tasks.path);
  checkReward(ctx, samplingSetup(state.sampling, options), tasks);
  run.save();
  const model: ModelRef = {
    id: state.model.id,
    entry: undefined,
    byName: false,
    ref: state.model.id,
    label: `${state.model.name} (${state.model.id})`,
  };
  const done = state.iterations.filter((i) => i.job_state === 'succeeded').length;
  ctx.io.info(
    `Resuming the training of ${state.model.name} in ${run.dir}: ${done} of ${state.steps} iterations done`,
  );
  return { run, model, tasks };
}

export async function runTrainRl(ctx: Context, options: TrainRlOptions, flags: ResumeFlags): Promise<void> {
  const { run, model, tasks } =
    options.resume !== undefined
      ? await resumedRun(ctx, options.resume, options, flags)
      : await newRun(ctx, options);
  const budgetArgs = [
    ...(options.maxCost !== undefined ? ['--max-cost', String(options.maxCost)] : []),
    ...(options.maxTotalTokens !== undefined ? ['--max-total-tokens', String(options.maxTotalTokens)] : []),
  ];
  const resume = ctx.commandLine(['train', 'rl', '--resume', run.dir, ...budgetArgs]);
  ctx.budget ?? budgetOf(ctx, options, run.state.model.name, run.state.sampling.reward);
  ctx.history.note({ model: run.state.model.name, ref: resolve(run.dir) });
  const gha = githubActions(ctx);
  try {
    await trainLoop(ctx, run, {
      model,
      tasks,
      sampling: samplingSetup(run.state.sampling, options),
      wait: { intervalSeconds: options.interval, stall: options.stall },
      resume,
    });
  } catch (error) {
    // A run that stopped on a failure is reported as one that ended; Ctrl-C is not (a wait's rule).
    if (error instanceof BudgetReachedError)
      error.hint = `everything is kept in ${run.dir}; carry on with: ${resume}`;
    if (gha && error instanceof CliError && !(error instanceof InterruptedError))
      reportRun(gha, run, { failure: error.message, resume });
    throw error;
  }
  printRunSummary(ctx, run);
  if (gha) reportRun(gha, run, { resume });
}
