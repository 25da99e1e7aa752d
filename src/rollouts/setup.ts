// What rollouts, eval and train rl make alike from their flags: the checkpoint's model URI, the plan
// (group size, request parameters, concurrency, the reward), the SDK client, and the trace hook.

import { resolveChatTarget } from '../chat/model.js';
import type { Context } from '../context.js';
import { UsageError } from '../errors/errors.js';
import { scorerFor } from './built-in-rewards.js';
import {
  type BuiltInReward,
  DEFAULT_CONCURRENCY,
  DEFAULT_GROUP_SIZE,
  DEFAULT_REWARD_TIMEOUT_S,
  DEFAULT_TEMPERATURE,
} from './defaults.js';
import { runRewardCommand } from './reward-command.js';
import type { RolloutEvents, RolloutPlan, Scorer } from './run.js';
import type { Task } from './tasks.js';

/** The flags of sampling and scoring, as the commands' definitions type them. */
export interface SamplingOptions {
  groupSize?: number;
  reward?: BuiltInReward;
  rewardCmd?: string;
  rewardTimeout?: number;
  temperature?: number;
  maxTokens?: number;
  concurrency?: number;
  trace?: boolean;
}

/** The Training API model a reference names: a checkpoint, as rollouts sample only trained ones. */
export function rolloutsModel(ctx: Context, ref: string): string {
  const target = resolveChatTarget(ctx, ref, 'training');
  if (!target.model.startsWith('wandb-artifact:///'))
    throw new UsageError(
      `"${ref}" is not a trained model: give name[:stepN] of a model created here (${ctx.commandLine(['models', 'list', '--remembered'])}) or wandb-artifact:///team/project/name[:stepN]`,
    );
  return target.model;
}

function scorer(ctx: Context, options: SamplingOptions, tasks: readonly Task[]): Scorer {
  if (options.reward && options.rewardCmd) throw new UsageError('give --reward or --reward-cmd, not both');
  if (options.reward) {
    const reward = options.reward;
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
      `a reward is needed: --reward exact|contains|regex|json-match, or --reward-cmd COMMAND`,
    );
  const timeoutMs = (options.rewardTimeout ?? DEFAULT_REWARD_TIMEOUT_S) * 1000;
  return (task, trajectory, reply, signal) =>
    runRewardCommand(
      command,
      {
        task_id: task.id,
        reference: task.reference ?? null,
        metadata: task.metadata ?? {},
        reply,
        trajectory,
      },
      { timeoutMs, signal, env: { ...ctx.env, AIP_TASK_ID: task.id } },
    );
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
    score: scorer(ctx, options, options.tasks),
    reward: options.reward ? `--reward ${options.reward}` : `--reward-cmd ${options.rewardCmd}`,
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
