// What each SOURCE of `aip compare` is, and its series. A path that exists is a file or a directory: a
// directory (or a run.json) is a train rl run, any other file an eval result (aip eval --json).
// `model:NAME` is a model's checkpoints; a SOURCE that is no path but a model this machine remembers
// (or a UUID) is one too. Every file is read and checked before any request is sent.

import { statSync } from 'node:fs';
import { allPages } from '../../api/pagination.js';
import type { Checkpoint } from '../../api/types.js';
import type { Context } from '../../context.js';
import { NotFoundError, UsageError } from '../../errors/errors.js';
import { ownValue } from '../../lib/own.js';
import { resolveModelArg, withModel } from '../../models/resolve.js';
import { parseEvalDocument } from '../../report/eval-document.js';
import { evalSeries } from '../../report/from-eval.js';
import type { ReportSeries } from '../../report/model.js';
import { MAX_EVAL_FILE, readJsonFile } from './files.js';
import { readRunSeries } from './run-source.js';

export type SourceKind = 'run' | 'eval' | 'model';

export interface SourceSeries extends ReportSeries {
  kind: SourceKind;
  source: string;
}

export type Source = { kind: 'run' | 'eval'; given: string } | { kind: 'model'; given: string; name: string };

const EVAL_METRICS = ['reward', 'mean', 'pass_rate', 'std'] as const;

/** What `given` names; a UsageError (exit 2) when nothing. */
export function classify(ctx: Context, given: string): Source {
  if (given.startsWith('model:')) {
    const name = given.slice('model:'.length);
    if (name === '') throw new UsageError(`${given}: model: takes a model's name or id (model:agent-001)`);
    return { kind: 'model', given, name };
  }
  let isDirectory: boolean | undefined;
  try {
    isDirectory = statSync(given).isDirectory();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT' && code !== 'ENOTDIR') throw new UsageError(`${given}: cannot read it (${code})`);
  }
  if (isDirectory !== undefined)
    return { kind: isDirectory || /(^|[\\/])run\.json$/.test(given) ? 'run' : 'eval', given };
  try {
    resolveModelArg(ctx, given);
    return { kind: 'model', given, name: given };
  } catch (error) {
    if (!(error instanceof NotFoundError)) throw error;
    throw new UsageError(
      `${given}: no such file or directory, nor a model created from this machine (a model: model:NAME; a run: its directory; an eval: the file aip eval --json wrote)`,
    );
  }
}

function evalFileSeries(ctx: Context, file: string, metric: string): SourceSeries[] {
  if (!(EVAL_METRICS as readonly string[]).includes(metric))
    throw new UsageError(
      `${file}: an eval result has ${EVAL_METRICS.join(', ')} (reward is the mean), not "${metric}"`,
    );
  const document = parseEvalDocument(readJsonFile(file, MAX_EVAL_FILE), file);
  const field = metric === 'reward' ? 'mean' : (metric as 'mean' | 'pass_rate' | 'std');
  const { series, stepless } = evalSeries(document, (c) => c[field]);
  if (stepless.length > 0)
    ctx.io.warn(
      `${file}: ${stepless.join(', ')} named no step (name:stepN), so ${stepless.length === 1 ? 'it has' : 'they have'} no place on the chart: left out`,
    );
  if (series.length === 0)
    throw new UsageError(`${file}: no checkpoint with a step and a ${metric} to compare`);
  return series.map((s) => ({
    ...s,
    kind: 'eval',
    source: file,
    label: series.length === 1 ? file : `${file}: ${s.label}`,
  }));
}

/** Every checkpoint of the model, page after page (as checkpoints list --all asks for them). */
async function allCheckpoints(ctx: Context, id: string): Promise<Checkpoint[]> {
  const training = ctx.training();
  const all: Checkpoint[] = [];
  const pages = allPages(
    (after) => training.listCheckpoints(id, { after, limit: 100 }),
    undefined,
    ctx.limits.pages,
  );
  for await (const page of pages) all.push(...page);
  return all;
}

async function modelSeries(ctx: Context, source: Extract<Source, { kind: 'model' }>, metric: string) {
  // Resolved once the files are read: a file's problem is told before a model's.
  const model = resolveModelArg(ctx, source.name);
  const checkpoints = await withModel(ctx, model, () => allCheckpoints(ctx, model.id));
  const points = checkpoints.flatMap((c) => {
    const y = ownValue(c.metrics, metric);
    return typeof y === 'number' && Number.isFinite(y) ? [{ x: c.step, y, label: `step ${c.step}` }] : [];
  });
  if (points.length === 0) {
    const seen = [...new Set(checkpoints.flatMap((c) => Object.keys(c.metrics)))].sort();
    throw new UsageError(
      `${source.given}: no checkpoint of ${model.label} has the metric "${metric}"${seen.length ? `; metrics: ${seen.join(', ')}` : ''}`,
    );
  }
  points.sort((a, b) => a.x - b.x);
  const series: SourceSeries = { kind: 'model', source: model.label, label: source.given, points };
  return series;
}

/** Reads the files first (every problem before any request), then asks for the models' checkpoints. */
export async function readSeries(
  ctx: Context,
  sources: readonly Source[],
  metric: string,
): Promise<SourceSeries[]> {
  const fromFiles = sources.map((s): SourceSeries[] | undefined => {
    if (s.kind === 'eval') return evalFileSeries(ctx, s.given, metric);
    if (s.kind !== 'run') return undefined;
    const run = readRunSeries(s.given, metric);
    if (run.partial.length > 0)
      ctx.io.info(`${s.given}: iteration ${run.partial.join(', ')} still sampling: its mean so far is drawn`);
    if (run.points.length === 0) throw new UsageError(`${s.given}: no iteration with a mean reward yet`);
    return [{ kind: 'run', source: s.given, label: s.given, points: run.points }];
  });
  const all: SourceSeries[] = [];
  for (const [i, s] of sources.entries())
    all.push(...(fromFiles[i] ?? [await modelSeries(ctx, s as Extract<Source, { kind: 'model' }>, metric)]));
  return all;
}
