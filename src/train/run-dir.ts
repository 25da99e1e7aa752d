// The run directory of `aip train rl`: run.json (the plan, and where each iteration is) and
// iteration-<n>/groups.jsonl. run.json is rewritten whole and atomically after every change of state,
// so a run stopped at any point (Ctrl-C, a failure, kill -9) leaves a file that says exactly what was
// done and what was about to be: --resume carries on from it, never repeating a create.

import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Spent } from '../budget/budget.js';
import { UsageError } from '../errors/errors.js';
import { writeFileAtomic } from '../fs/atomic-write.js';
import { writeError } from '../fs/write-error.js';
import { isObject } from '../lib/json.js';
import type { RewardName } from '../rollouts/defaults.js';

export const RUN_FILE = 'run.json';

/** What sampling is done with, as the flags gave it (snake_case, as the rest of the file). */
export interface RunSampling {
  group_size?: number;
  reward?: RewardName;
  /** --rubric, as given (resolved): a resumed run's judge reads it again, and its groups' hash tells a change. */
  rubric?: string;
  judge_group?: boolean;
  reward_cmd?: string;
  reward_server?: string;
  reward_workers?: number;
  reward_url?: string;
  reward_timeout?: number;
  /** --sandbox, and its limits: a resumed run scores as confined as it began. */
  sandbox?: boolean;
  sandbox_cpu?: number;
  sandbox_memory?: number;
  temperature?: number;
  max_tokens?: number;
  concurrency?: number;
  /** --option / -o key=value, parsed. */
  params: Record<string, unknown>;
}

export interface RolloutSummary {
  groups: number;
  trajectories: number;
  failed: number;
  mean_reward: number | null;
}

export interface IterationRecord {
  /** 1, 2, … */
  iteration: number;
  /** The seed of its rollouts, derived from the run's: a resumed iteration samples the same. */
  seed: number;
  /** The checkpoint its rollouts sample (the model's latest when the iteration began). */
  checkpoint_step: number;
  /** Relative to the run directory. */
  groups_file: string;
  /** Set once every task's group is in the file. */
  rollouts?: RolloutSummary;
  /** What its rollouts used (samples, a judge's verdicts), added up over every --resume that sampled. */
  usage?: Spent;
  /** --log-split: `sending` is written before the request, `logged` after its answer. */
  log?: { split: string; state: 'sending' | 'logged' | 'unknown' };
  /** Written before the create is sent: with no job_id beside it, whether the job exists is unknown. */
  create_sent_at?: string;
  job_id?: string;
  /** How the job ended, once it has (succeeded, failed); absent while it runs. */
  job_state?: 'succeeded' | 'failed';
  job_error?: string;
  /** The step of the checkpoint the job made last (jobs/job-checkpoint.ts); absent when none is known. */
  new_checkpoint_step?: number;
  /** Jobs of this iteration that failed, before the one above was created on a --resume. */
  failed_jobs?: Array<{ job_id: string; error?: string }>;
}

export interface RunState {
  version: 1;
  created_at: string;
  model: { id: string; name: string; base_url: string };
  tasks: { path: string; sha256: string; count: number };
  /** Iterations in all. */
  steps: number;
  /** The base seed; each iteration's is derived from it. */
  seed: number;
  sampling: RunSampling;
  experimental_config: Record<string, unknown>;
  log_split: string | null;
  iterations: IterationRecord[];
}

export interface RunDir {
  /** Absolute. */
  dir: string;
  state: RunState;
  /** Writes run.json as the state now is. */
  save(): void;
  /** The absolute path of a file named relative to the run directory. */
  path(relative: string): string;
}

function runDir(dir: string, state: RunState): RunDir {
  const file = join(dir, RUN_FILE);
  return {
    dir,
    state,
    save() {
      try {
        writeFileAtomic(file, `${JSON.stringify(state, null, 2)}\n`, { followSymlinks: true });
      } catch (error) {
        throw writeError(file, error, {
          exit: 'error',
          outcome: `${file} holds the state before this change`,
        });
      }
    },
    path: (relative) => join(dir, relative),
  };
}

/** A new run directory: made if missing; refused when it holds a run already. */
export function createRunDir(path: string, state: RunState): RunDir {
  const dir = resolve(path);
  if (existsSync(join(dir, RUN_FILE)))
    throw new UsageError(
      `${dir} holds a run already: continue it with --resume ${path}, or give another --run-dir`,
    );
  try {
    mkdirSync(dir, { recursive: true });
  } catch (error) {
    throw writeError(dir, error, { outcome: 'nothing was sent' });
  }
  const run = runDir(dir, state);
  run.save();
  return run;
}

function looksLikeRun(value: unknown): value is RunState {
  if (!isObject(value) || value.version !== 1) return false;
  const { model, tasks, sampling, iterations } = value as Record<string, unknown>;
  return (
    isObject(model) &&
    typeof model.id === 'string' &&
    typeof model.name === 'string' &&
    isObject(tasks) &&
    typeof tasks.path === 'string' &&
    isObject(sampling) &&
    Array.isArray(iterations) &&
    Number.isInteger(value.steps) &&
    Number.isInteger(value.seed)
  );
}

export function openRunDir(path: string): RunDir {
  const dir = resolve(path);
  const file = join(dir, RUN_FILE);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new UsageError(
      code === 'ENOENT'
        ? `${file} does not exist: --resume takes the directory of a train rl run`
        : `cannot read ${file} (${code})`,
    );
  }
  let state: unknown;
  try {
    state = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`${file}: not valid JSON (${(error as Error).message.split('\n')[0]})`);
  }
  if (!looksLikeRun(state)) throw new UsageError(`${file} is not the state of an aip train rl run`);
  return runDir(dir, state);
}

/** ./aip-train-<model name>-<UTC time>, e.g. aip-train-agent-20250102T030405Z. */
export function defaultRunDir(modelName: string, now: Date): string {
  const stamp = now
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z');
  return `aip-train-${modelName.replace(/[^\w.-]+/g, '_')}-${stamp}`;
}

/**
 * How the loop reads back the groups files it wrote: a group whose samples all failed (no
 * trajectories) was counted in the iteration's line already, and is not warned of again each read.
 */
export const OWN_FILE = { warnEmpty: false } as const;
