// What rollouts, eval and train rl make alike from their flags: the checkpoint's model URI, the plan
// (group size, request parameters, concurrency, the reward), the SDK client, and the trace hook.

import { resolveChatTarget } from '../chat/model.js';
import { resolveCheckpointAlias } from '../checkpoints/resolve-alias.js';
import type { Context } from '../context.js';
import { UsageError } from '../errors/errors.js';
import { redactUrlSecrets } from '../output/secrets.js';
import { scorerFor } from './built-in-rewards.js';
import {
  type BuiltInReward,
  DEFAULT_CONCURRENCY,
  DEFAULT_GROUP_SIZE,
  DEFAULT_JUDGE_TIMEOUT_S,
  DEFAULT_REWARD_TIMEOUT_S,
  DEFAULT_SANDBOX_CPU_S,
  DEFAULT_SANDBOX_MEMORY_MIB,
  DEFAULT_TEMPERATURE,
  JUDGE_PREFIX,
  type RewardName,
} from './defaults.js';
import { judgeGroupScorer, judgeScorer } from './judge.js';
import { DEFAULT_RUBRIC } from './judge-prompt.js';
import { runRewardCommand } from './reward-command.js';
import { rewardInput } from './reward-input.js';
import { rewardServerScorer } from './reward-server.js';
import { rewardUrlScorer } from './reward-url.js';
import { type Rubric, readRubric } from './rubric.js';
import type { GroupScorer, RolloutEvents, RolloutPlan, Scorer } from './run.js';
import { findSandbox, type Sandbox, secretNames } from './sandbox.js';
import type { Task } from './tasks.js';

/** The flags of sampling and scoring, as the commands' definitions type them. */
export interface SamplingOptions {
  groupSize?: number;
  reward?: RewardName;
  /** --rubric: the file a judge scores by (--reward judge:MODEL). */
  rubric?: string;
  /** --judge-group: the judge scores each group in one request. */
  judgeGroup?: boolean;
  rewardCmd?: string;
  rewardServer?: string;
  rewardWorkers?: number;
  rewardUrl?: string;
  rewardTimeout?: number;
  /** --sandbox: the reward command or server runs confined (rollouts/sandbox.ts). */
  sandbox?: boolean;
  sandboxCpu?: number;
  sandboxMemory?: number;
  temperature?: number;
  maxTokens?: number;
  concurrency?: number;
  trace?: boolean;
}

/**
 * The Training API model a reference names: a checkpoint, as rollouts sample only trained ones.
 * `m:best…` and `m:latest` are resolved to their step first, by listing the model's checkpoints
 * (checkpoints/resolve-alias.ts): the one request made before anything is sampled.
 */
export async function rolloutsModel(ctx: Context, ref: string): Promise<string> {
  const target = resolveChatTarget(ctx, await resolveCheckpointAlias(ctx, ref), 'training');
  if (!target.model.startsWith('wandb-artifact:///'))
    throw new UsageError(
      `"${ref}" is not a trained model: give name[:stepN|:best|:latest] of a model created here (${ctx.commandLine(['models', 'list', '--remembered'])}) or wandb-artifact:///team/project/name[:stepN]`,
    );
  return target.model;
}

/** The reward flags, one of which a run takes. */
const REWARD_FLAGS = [
  ['reward', '--reward'],
  ['rewardCmd', '--reward-cmd'],
  ['rewardServer', '--reward-server'],
  ['rewardUrl', '--reward-url'],
] as const;

/** The judge of --reward judge:MODEL, or undefined for another reward. */
const judgeOf = (options: SamplingOptions) =>
  options.reward?.startsWith(JUDGE_PREFIX) ? options.reward.slice(JUDGE_PREFIX.length) : undefined;

/**
 * The reward as given, kept in each group's metadata (a resumed file must be scored the same way); a
 * URL's secrets (a token in its query, credentials) masked, as the file outlives the command; a
 * judge's rubric by its content's hash, so that a rubric changed since is told apart.
 */
export function rewardLabel(options: SamplingOptions, rubric?: Rubric): string {
  const given = REWARD_FLAGS.find(([key]) => options[key] !== undefined);
  if (!given) return '';
  const value = String(options[given[0]]);
  if (given[0] === 'rewardUrl') return `${given[1]} ${redactUrlSecrets(value)}`;
  if (judgeOf(options) === undefined) return `${given[1]} ${value}`;
  return [
    `${given[1]} ${value}`,
    ...(options.judgeGroup ? ['--judge-group'] : []),
    ...(rubric ? [`--rubric sha256:${rubric.sha256.slice(0, 12)}`] : []),
  ].join(' ');
}

/**
 * The sandbox --sandbox asks for, found now (at setup, before anything is sampled): refused with the
 * reason where there is none, and for a reward that runs no command of the user's here.
 */
function sandboxFor(ctx: Context, options: SamplingOptions): Sandbox | undefined {
  if (!options.sandbox) {
    const limit = options.sandboxCpu !== undefined ? '--sandbox-cpu' : '--sandbox-memory';
    if (options.sandboxCpu !== undefined || options.sandboxMemory !== undefined)
      throw new UsageError(`${limit} is a limit of the sandbox: give --sandbox`);
    return undefined;
  }
  if (options.rewardUrl !== undefined || options.reward !== undefined)
    throw new UsageError(
      `--sandbox confines a --reward-cmd or --reward-server: ${options.rewardUrl !== undefined ? '--reward-url runs elsewhere' : '--reward runs no command'}`,
    );
  const sandbox = findSandbox(
    {
      cpuSeconds: options.sandboxCpu ?? DEFAULT_SANDBOX_CPU_S,
      memoryMiB: options.sandboxMemory ?? DEFAULT_SANDBOX_MEMORY_MIB,
    },
    ctx.env,
  );
  // The platform's key, wherever it came from, and the reward service's stay outside.
  let key: string | undefined;
  try {
    key = ctx.settings.apiKey()?.key;
  } catch {
    key = undefined;
  }
  return { ...sandbox, unsetEnv: secretNames(ctx.env, key ? [key] : []) };
}

/** The judge's scorer, its rubric read now: a rubric that cannot be read costs no samples. */
function judgeScorerOf(ctx: Context, ref: string, options: JudgedOptions) {
  const setup = {
    model: resolveChatTarget(ctx, ref, 'inference').model,
    rubric: options.rubricRead?.text ?? DEFAULT_RUBRIC,
    group: options.judgeGroup === true,
    timeoutMs: (options.rewardTimeout ?? DEFAULT_JUDGE_TIMEOUT_S) * 1000,
    seed: options.seed,
  };
  return setup.group ? judgeGroupScorer(ctx, setup) : judgeScorer(ctx, setup);
}

/** The flags, with what the plan has read and drawn for them. */
type JudgedOptions = SamplingOptions & { seed: number; rubricRead: Rubric | undefined };

function scorer(ctx: Context, options: JudgedOptions, tasks: readonly Task[]): Scorer | GroupScorer {
  const given = REWARD_FLAGS.filter(([key]) => options[key] !== undefined).map(([, flag]) => flag);
  if (given.length > 1) throw new UsageError(`give one reward, not ${given.join(' and ')}`);
  if (options.rewardWorkers !== undefined && options.rewardServer === undefined)
    throw new UsageError('--reward-workers is the size of the --reward-server pool: give --reward-server');
  const sandbox = sandboxFor(ctx, options);
  if (options.rewardServer !== undefined)
    return rewardServerScorer(ctx, options.rewardServer, options, {}, { sandbox });
  if (options.rewardUrl !== undefined) return rewardUrlScorer(ctx, options.rewardUrl, options);
  const judge = judgeOf(options);
  if (judge === undefined && (options.rubric !== undefined || options.judgeGroup))
    throw new UsageError(
      `${options.rubric !== undefined ? '--rubric' : '--judge-group'} is for a judge: give --reward judge:MODEL`,
    );
  if (judge !== undefined) return judgeScorerOf(ctx, judge, options);
  if (options.reward) {
    const reward = options.reward as BuiltInReward;
    // Every task's reference is checked now: a reward that cannot be computed costs no samples.
    const scorers = new Map(tasks.map((task) => [task.id, scorerFor(reward, task)]));
    return async (task, _trajectory, reply) => ({
      ok: true,
      scored: { reward: scorers.get(task.id)!(reply) },
    });
  }
  const command = options.rewardCmd;
  if (command === undefined || command.trim() === '')
    throw new UsageError(
      'a reward is needed: --reward exact|contains|regex|json-match, or --reward-cmd COMMAND, --reward-server COMMAND or --reward-url URL',
    );
  const timeoutMs = (options.rewardTimeout ?? DEFAULT_REWARD_TIMEOUT_S) * 1000;
  return (task, trajectory, reply, signal) =>
    runRewardCommand(command, rewardInput(task, trajectory, reply), {
      timeoutMs,
      signal,
      env: { ...ctx.env, AIP_TASK_ID: task.id },
      sandbox,
    });
}

export function rolloutPlan(
  ctx: Context,
  options: SamplingOptions & {
    params: Record<string, unknown>;
    seed: number;
    model: string;
    tasks: readonly Task[];
  },
): RolloutPlan {
  // Read once, before anything is sampled: the judge's words and the label's hash are of one text.
  const rubricRead = options.rubric === undefined ? undefined : readRubric(options.rubric);
  const params = { ...options.params };
  params.temperature = options.temperature ?? params.temperature ?? DEFAULT_TEMPERATURE;
  if (options.maxTokens !== undefined) params.max_tokens = options.maxTokens;
  return {
    model: options.model,
    tasks: options.tasks,
    groupSize: options.groupSize ?? DEFAULT_GROUP_SIZE,
    params,
    concurrency: options.concurrency ?? DEFAULT_CONCURRENCY,
    seed: options.seed,
    score: scorer(ctx, { ...options, rubricRead }, options.tasks),
    reward: rewardLabel(options, rubricRead),
  };
}

export async function rolloutClient(ctx: Context) {
  const { openaiClient } = await import('../api/openai.js');
  return openaiClient(ctx, 'training');
}

/** --trace: each rollout's exchange as a chat span (the chat command's tracer, per request). */
export async function traceHook(
  ctx: Context,
  options: SamplingOptions,
  model: string,
): Promise<RolloutEvents['traceExchange']> {
  if (!options.trace) return undefined;
  const { ChatTracer } = await import('../chat/trace.js');
  const tracer = new ChatTracer(ctx);
  return (params) => {
    const end = tracer.start({ model, api: 'training', params });
    return (result) =>
      'error' in result
        ? end({ error: result.error })
        : end({
            model: result.sample.model,
            finishReason: (result.sample.choice.finish_reason as string) ?? null,
            usage: result.sample.usage,
            interrupted: false,
          });
  };
}
