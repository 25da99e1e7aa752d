// One checkpoint of an eval: every task sampled with the rollouts machinery (no groups file; the
// groups are read as each completes), the rewards kept per task for the statistics and the diff.

import type OpenAI from 'openai';
import type { Context } from '../context.js';
import { rolloutsWithProgress } from '../rollouts/progress-report.js';
import type { RolloutEvents, RolloutPlan, RolloutTotals } from '../rollouts/run.js';
import type { TaskRewards } from './statistics.js';

export interface CheckpointRun {
  /** By task id. A task is missing when the run was stopped before its group completed. */
  tasks: Map<string, TaskRewards>;
  /** Why the first failed sample failed, to say so when none was scored. */
  firstFailure: string | undefined;
  totals: RolloutTotals;
  /** With keepSamples: each task's samples, in order (the reply's text, its reward or why none). */
  samples?: Map<string, KeptSample[]>;
}

export interface KeptSample {
  reward: number | null;
  text: string;
  error?: string;
}

/**
 * A kept sample's text, at most this long: a report shows a sample, it does not replay it, and every
 * sample of every checkpoint is kept until the tasks that changed are known.
 */
const MAX_SAMPLE_CHARS = 4000;

const cut = (text: string) => (text.length > MAX_SAMPLE_CHARS ? `${text.slice(0, MAX_SAMPLE_CHARS)}…` : text);

/** The text of a trajectory's reply: its last message's content, or its tool calls as JSON. */
function replyText(trajectory: Record<string, unknown>): string {
  const last = (trajectory.messages_and_choices as Array<{ message?: Record<string, unknown> }>).at(-1);
  const message = last?.message ?? {};
  if (typeof message.content === 'string') return message.content;
  return message.tool_calls ? JSON.stringify(message.tool_calls) : '';
}

export async function evaluateCheckpoint(
  ctx: Context,
  client: OpenAI,
  plan: RolloutPlan,
  label: string,
  signal: AbortSignal,
  traceExchange: RolloutEvents['traceExchange'],
  /** --report: the samples are kept, for the tasks that changed. */
  keepSamples = false,
): Promise<CheckpointRun> {
  const tasks = new Map<string, TaskRewards>();
  const samples = keepSamples ? new Map<string, KeptSample[]>() : undefined;
  let firstFailure: string | undefined;
  const totals = await rolloutsWithProgress(ctx, client, plan, undefined, signal, {
    label,
    traceExchange,
    onGroup: (group, task) => {
      const trajectories = group.trajectories as Array<{ reward: number }>;
      const exceptions = (group.exceptions ?? []) as Array<{ message: string }>;
      firstFailure ??= exceptions[0]?.message;
      tasks.set(task.id, { rewards: trajectories.map((t) => t.reward), failed: exceptions.length });
      samples?.set(task.id, [
        ...(trajectories as unknown as Array<Record<string, unknown> & { reward: number }>).map((t) => ({
          reward: t.reward,
          text: cut(replyText(t)),
        })),
        ...exceptions.map((e) => ({ reward: null, text: '', error: e.message })),
      ]);
    },
  });
  return { tasks, firstFailure, totals, ...(samples ? { samples } : {}) };
}
