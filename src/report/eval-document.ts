// The JSON document `aip eval --json` prints (eval/report.ts evalDocument), typed, and read back from a
// file that may hold anything: every field is checked, and a problem is one `file: path: problem` line
// (exit 2). A checkpoint's step comes from its name (`agent:step8`) or its URI (`…/agent:step8`).

import { UsageError } from '../errors/errors.js';
import { isObject } from '../lib/json.js';

export interface EvalCheckpointDocument {
  model: string;
  uri: string;
  samples: number;
  mean: number | null;
  std: number | null;
  pass_rate: number | null;
  failed: number;
}

export interface EvalTaskDocument {
  id: string;
  means: Array<number | null>;
  change: number | null;
}

/** What evalDocument returns (eval/report.ts), and what `aip eval --json` prints. */
export interface EvalDocument {
  seed: number;
  pass_threshold: number;
  checkpoints: EvalCheckpointDocument[];
  tasks?: EvalTaskDocument[];
  changes?: { improved: number; worse: number; unchanged: number; unscored: number };
}

/** At most this many checkpoints and tasks in a file read back: a document past them is not an eval's. */
export const MAX_EVAL_CHECKPOINTS = 1000;
export const MAX_EVAL_TASKS = 100_000;
const MAX_NAME = 1000;

class Problem extends Error {}

const fail = (path: string, problem: string): never => {
  throw new Problem(`${path}: ${problem}`);
};

function text(value: unknown, path: string): string {
  if (typeof value !== 'string') return fail(path, 'expected a string');
  if (value.length === 0 || value.length > MAX_NAME)
    return fail(path, `expected 1 to ${MAX_NAME} characters, got ${value.length}`);
  return value;
}

function num(value: unknown, path: string): number {
  if (typeof value !== 'number' || !Number.isFinite(value)) return fail(path, 'expected a number');
  return value;
}

function count(value: unknown, path: string): number {
  if (!Number.isSafeInteger(value) || (value as number) < 0) return fail(path, 'expected a whole number ≥ 0');
  return value as number;
}

const orNull = (value: unknown, path: string) => (value === null ? null : num(value, path));

function list(value: unknown, path: string, max: number): unknown[] {
  if (!Array.isArray(value)) return fail(path, 'expected an array');
  if (value.length > max) return fail(path, `more than ${max} items (${value.length})`);
  return value;
}

function checkpoint(value: unknown, path: string): EvalCheckpointDocument {
  if (!isObject(value)) return fail(path, 'expected an object');
  return {
    model: text(value.model, `${path}.model`),
    uri: text(value.uri, `${path}.uri`),
    samples: count(value.samples, `${path}.samples`),
    mean: orNull(value.mean, `${path}.mean`),
    std: orNull(value.std, `${path}.std`),
    pass_rate: orNull(value.pass_rate, `${path}.pass_rate`),
    failed: count(value.failed, `${path}.failed`),
  };
}

function task(value: unknown, path: string, checkpoints: number): EvalTaskDocument {
  if (!isObject(value)) return fail(path, 'expected an object');
  const means = list(value.means, `${path}.means`, checkpoints).map((m, i) =>
    orNull(m, `${path}.means[${i}]`),
  );
  if (means.length !== checkpoints) fail(`${path}.means`, `expected one per checkpoint (${checkpoints})`);
  return { id: text(value.id, `${path}.id`), means, change: orNull(value.change, `${path}.change`) };
}

function changes(value: unknown): NonNullable<EvalDocument['changes']> {
  if (!isObject(value)) return fail('changes', 'expected an object');
  const [improved, worse, unchanged, unscored] = (
    ['improved', 'worse', 'unchanged', 'unscored'] as const
  ).map((key) => count(value[key], `changes.${key}`));
  return { improved: improved!, worse: worse!, unchanged: unchanged!, unscored: unscored! };
}

function document(value: unknown): EvalDocument {
  if (!isObject(value)) return fail('(top)', 'expected the JSON object aip eval --json prints');
  if (!('checkpoints' in value)) return fail('checkpoints', 'missing: not the output of aip eval --json');
  const checkpoints = list(value.checkpoints, 'checkpoints', MAX_EVAL_CHECKPOINTS).map((c, i) =>
    checkpoint(c, `checkpoints[${i}]`),
  );
  if (checkpoints.length === 0) fail('checkpoints', 'empty: no checkpoint was evaluated');
  const doc: EvalDocument = {
    seed: num(value.seed, 'seed'),
    pass_threshold: num(value.pass_threshold, 'pass_threshold'),
    checkpoints,
  };
  if (value.tasks !== undefined)
    doc.tasks = list(value.tasks, 'tasks', MAX_EVAL_TASKS).map((t, i) =>
      task(t, `tasks[${i}]`, checkpoints.length),
    );
  if (value.changes !== undefined) doc.changes = changes(value.changes);
  return doc;
}

/** The document in `parsed` (JSON already parsed from `file`), checked; a UsageError names the first problem. */
export function parseEvalDocument(parsed: unknown, file: string): EvalDocument {
  try {
    return document(parsed);
  } catch (error) {
    if (error instanceof Problem) throw new UsageError(`${file}: ${error.message}`);
    throw error;
  }
}

/** `agent:step8` → { name: 'agent', step: 8 }; no step in the name or the URI → step undefined. */
export function checkpointStep(c: Pick<EvalCheckpointDocument, 'model' | 'uri'>): {
  name: string;
  step: number | undefined;
} {
  const match = /^(.*):step(\d{1,15})$/.exec(c.model) ?? /^(.*):step(\d{1,15})$/.exec(c.uri);
  if (!match) return { name: c.model, step: undefined };
  const fromModel = /^(.*):step\d{1,15}$/.exec(c.model);
  const name = fromModel ? fromModel[1]! : c.model;
  return { name, step: Number(match[2]) };
}
