// A train rl run directory as a series: the mean reward of each iteration's samples, at the step of the
// checkpoint it sampled (so that runs, evals and a model's checkpoints share one axis). The totals come
// from run.json; an iteration still sampling (no totals yet) is read from its groups file, marked
// partial. run.json is untrusted: every field used is checked, and a groups file it names must lie
// inside the run directory.

import { basename, dirname, isAbsolute, join, normalize, relative, resolve, sep } from 'node:path';
import { UsageError } from '../../errors/errors.js';
import { readBounded } from '../../fs/read-bounded.js';
import { isObject } from '../../lib/json.js';
import type { ReportPoint } from '../../report/model.js';
import { RUN_FILE } from '../../train/run-dir.js';
import { MAX_GROUPS_FILE, MAX_RUN_FILE, readJsonFile } from './files.js';

/** More iterations than any run makes: a file past it is not a run's. */
const MAX_ITERATIONS = 100_000;

export const RUN_METRICS = ['reward', 'mean_reward'] as const;

interface Iteration {
  iteration: number;
  step: number;
  groupsFile: string;
  mean: number | null | undefined;
}

function iterationOf(value: unknown, file: string, i: number): Iteration {
  const where = `${file}: iterations[${i}]`;
  if (!isObject(value)) throw new UsageError(`${where}: expected an object`);
  const { iteration, checkpoint_step: step, groups_file: groupsFile, rollouts } = value;
  if (!Number.isSafeInteger(iteration) || (iteration as number) < 1)
    throw new UsageError(`${where}.iteration: expected a whole number ≥ 1`);
  if (!Number.isSafeInteger(step) || (step as number) < 0)
    throw new UsageError(`${where}.checkpoint_step: expected a whole number ≥ 0`);
  if (typeof groupsFile !== 'string' || groupsFile.length === 0 || groupsFile.length > 4096)
    throw new UsageError(`${where}.groups_file: expected a path`);
  let mean: number | null | undefined;
  if (rollouts !== undefined) {
    if (!isObject(rollouts)) throw new UsageError(`${where}.rollouts: expected an object`);
    const m = rollouts.mean_reward;
    if (m !== null && (typeof m !== 'number' || !Number.isFinite(m)))
      throw new UsageError(`${where}.rollouts.mean_reward: expected a number or null`);
    mean = m;
  }
  return { iteration: iteration as number, step: step as number, groupsFile, mean };
}

/** The run's iterations, from run.json, checked. */
function readIterations(file: string): { model: string | undefined; iterations: Iteration[] } {
  const state = readJsonFile(file, MAX_RUN_FILE);
  if (!isObject(state) || state.version !== 1 || !Array.isArray(state.iterations))
    throw new UsageError(`${file}: not the run.json of an aip train rl run (version 1, with iterations)`);
  if (state.iterations.length > MAX_ITERATIONS)
    throw new UsageError(`${file}: iterations: more than ${MAX_ITERATIONS}`);
  const model = isObject(state.model) && typeof state.model.name === 'string' ? state.model.name : undefined;
  return { model, iterations: state.iterations.map((it, i) => iterationOf(it, file, i)) };
}

/** The groups file run.json names, refused when it lies outside the run directory. */
function groupsPath(dir: string, name: string, file: string): string {
  const inside = relative(dir, resolve(dir, normalize(name)));
  if (
    isAbsolute(name) ||
    inside === '' ||
    inside === '..' ||
    inside.startsWith(`..${sep}`) ||
    isAbsolute(inside)
  )
    throw new UsageError(`${file}: groups_file ${JSON.stringify(name)} is not inside the run directory`);
  return join(dir, inside);
}

/** The mean reward of the whole groups in a groups file (the last line may be unfinished: left out). */
function groupsMean(path: string): { mean: number | null; groups: number } | undefined {
  let bytes: Buffer;
  try {
    bytes = readBounded(path, MAX_GROUPS_FILE);
  } catch (error) {
    if (error instanceof UsageError && / \(no such file\)$/.test(error.message)) return undefined;
    throw error;
  }
  let sum = 0;
  let count = 0;
  let groups = 0;
  const lines = bytes.toString('utf8').split('\n');
  lines.forEach((line, i) => {
    if (line.trim() === '') return;
    let group: unknown;
    try {
      group = JSON.parse(line);
    } catch {
      if (i === lines.length - 1) return; // cut off by a stop: not a whole group
      throw new UsageError(`${path}:${i + 1}: not valid JSON`);
    }
    groups++;
    const trajectories = isObject(group) && Array.isArray(group.trajectories) ? group.trajectories : [];
    for (const t of trajectories)
      if (isObject(t) && typeof t.reward === 'number' && Number.isFinite(t.reward)) {
        sum += t.reward;
        count++;
      }
  });
  return { mean: count > 0 ? sum / count : null, groups };
}

export interface RunSeries {
  model: string | undefined;
  points: ReportPoint[];
  /** Iterations drawn from a groups file still being written. */
  partial: number[];
}

/** `dir` is the run directory (or its run.json). */
export function readRunSeries(path: string, metric: string): RunSeries {
  const dir = resolve(basename(path) === RUN_FILE ? dirname(path) : path);
  const file = join(dir, RUN_FILE);
  if (!(RUN_METRICS as readonly string[]).includes(metric))
    throw new UsageError(
      `${path}: a train rl run has the mean reward of its samples only (--metric reward), not "${metric}"`,
    );
  const { model, iterations } = readIterations(file);
  const points: ReportPoint[] = [];
  const partial: number[] = [];
  for (const it of iterations) {
    let mean = it.mean;
    if (mean === undefined) {
      const read = groupsMean(groupsPath(dir, it.groupsFile, file));
      if (!read || read.groups === 0) continue;
      mean = read.mean;
      partial.push(it.iteration);
    }
    if (mean === null) continue;
    points.push({
      x: it.step,
      y: mean,
      label: `iteration ${it.iteration}${partial.includes(it.iteration) ? ' (partial)' : ''}`,
    });
  }
  return { model, points, partial };
}
