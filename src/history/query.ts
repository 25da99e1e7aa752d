// What aip reads of its history (`aip history`, `aip usage`, `jobs list --all-profiles`): every read
// folds the journal files first (fold.ts), so that it sees what running and finished commands have
// appended, then answers from the store (store.ts). With no database and no journal, every list is
// empty and nothing is made.

import type { Context } from '../context.js';
import { NotFoundError } from '../errors/errors.js';
import { detailOf, findInvocation } from './detail.js';
import { api, SUMMARY, str, strOrNull, summaryOf, whereOf } from './rows.js';
import { withHistoryStore } from './store.js';

export interface UsageRow {
  run: string;
  id: number;
  at: string;
  command: string;
  profile: string;
  ref: string | null;
  api: 'training' | 'inference';
  model: string;
  purpose: string;
  prompt_tokens: number;
  completion_tokens: number;
  samples: number;
  job: string | null;
}

export interface CreatedRow {
  run: string;
  id: number;
  at: string;
  what: 'model' | 'job';
  object_id: string;
  name: string | null;
  kind: string | null;
  base_url: string;
  profile: string;
}

export interface HistoryFilter {
  /** ISO-8601: invocations started at or after it. */
  since?: string;
  /** ISO-8601: invocations started before it. */
  until?: string;
  /** A prefix of the command path ("jobs", "jobs create"). */
  command?: string;
  /** A model the invocation noted or used (exact, or the end of a team/project/name). */
  model?: string;
  /** A job the invocation noted, created or worked on. */
  job?: string;
  /** Text in the command line, the error, a model, a job or a created id (case-insensitive). */
  search?: string;
  /** At most this many, the newest. */
  limit?: number;
}

/** One invocation as `aip history` lists it. */
export interface InvocationSummary {
  id: number;
  run: string;
  at: string;
  command: string;
  argv: string[];
  profile: string;
  /** null while the command runs, or when it was killed before it could say. */
  exit: number | null;
  error: string | null;
  duration_ms: number | null;
  ended_at: string | null;
  requests: number;
  samples: number;
  prompt_tokens: number;
  completion_tokens: number;
  /** The ids of what it created (models, jobs). */
  created: string[];
}

export interface NoteRow {
  at: string;
  model: string | null;
  job: string | null;
  ref: string | null;
}

/** Usage of one invocation, summed per api, model and purpose. */
export interface UsageTotal {
  api: 'training' | 'inference';
  model: string;
  purpose: string;
  requests: number;
  samples: number;
  prompt_tokens: number;
  completion_tokens: number;
}

export interface BodyRow {
  at: string;
  api: 'training' | 'inference';
  model: string;
  purpose: string;
  request: unknown;
  response: unknown;
}

/** One invocation whole, as `aip history show` prints it. */
export interface InvocationDetail extends Omit<InvocationSummary, 'created'> {
  training_url: string | null;
  inference_url: string | null;
  trace_url: string | null;
  project: string | null;
  cwd: string | null;
  version: string | null;
  pid: number | null;
  host: string | null;
  notes: NoteRow[];
  created: Array<Omit<CreatedRow, 'run' | 'id'>>;
  usage: UsageTotal[];
  /** Only with history bodies on when it ran; the oldest may have been dropped (store.ts bounds). */
  bodies: BodyRow[];
}

/** The usage of every answer in the time range (of the answer, not of its command), oldest first. */
export async function readUsageRows(
  ctx: Context,
  filter: Pick<HistoryFilter, 'since' | 'until'>,
): Promise<UsageRow[]> {
  const rows = await withHistoryStore(ctx.env, ({ db }) =>
    db
      .prepare(
        `SELECT i.run, i.id, u.at, i.command, i.profile, u.api, u.model, u.purpose, u.prompt_tokens,
           u.completion_tokens, u.samples, u.job,
           (SELECT n.ref FROM notes n WHERE n.invocation = i.id AND n.ref IS NOT NULL
             ORDER BY n.rowid DESC LIMIT 1) AS ref
         FROM usage u JOIN invocations i ON i.id = u.invocation
         WHERE u.at >= ? AND u.at < ? ORDER BY u.at, u.rowid`,
      )
      .all(filter.since ?? '', filter.until ?? '\uffff'),
  );
  return (rows ?? []).map((row) => ({
    run: str(row.run),
    id: Number(row.id),
    at: str(row.at),
    command: str(row.command),
    profile: str(row.profile),
    ref: strOrNull(row.ref),
    api: api(row.api),
    model: str(row.model),
    purpose: str(row.purpose),
    prompt_tokens: Number(row.prompt_tokens),
    completion_tokens: Number(row.completion_tokens),
    samples: Number(row.samples),
    job: strOrNull(row.job),
  }));
}

/** What this machine's aip created, of every profile, oldest first. */
export async function readCreated(ctx: Context, what: 'model' | 'job'): Promise<CreatedRow[]> {
  const rows = await withHistoryStore(ctx.env, ({ db }) =>
    db
      .prepare(
        `SELECT i.run, i.id, c.at, c.what, c.object_id, c.name, c.kind, c.base_url, c.profile
         FROM created c JOIN invocations i ON i.id = c.invocation
         WHERE c.what = ? ORDER BY c.at, c.rowid`,
      )
      .all(what),
  );
  return (rows ?? []).map((row) => ({
    run: str(row.run),
    id: Number(row.id),
    at: str(row.at),
    what,
    object_id: str(row.object_id),
    name: strOrNull(row.name),
    kind: strOrNull(row.kind),
    base_url: str(row.base_url),
    profile: str(row.profile),
  }));
}

/** The invocations the filter selects, newest first, at most `limit`. */
export async function listInvocations(ctx: Context, filter: HistoryFilter): Promise<InvocationSummary[]> {
  const { sql, params } = whereOf(filter);
  const limit = filter.limit ?? -1;
  const rows = await withHistoryStore(ctx.env, ({ db }) =>
    db
      .prepare(
        `SELECT ${SUMMARY} FROM invocations i ${sql} ORDER BY i.at DESC, i.id DESC LIMIT ${Math.trunc(limit)}`,
      )
      .all(...params),
  );
  return (rows ?? []).map(summaryOf);
}

/** By its id, or a unique prefix of its run key; NotFoundError (exit 3) when none. */
export async function showInvocation(ctx: Context, idOrRun: string): Promise<InvocationDetail> {
  const detail = await withHistoryStore(ctx.env, ({ db }) => {
    const row = findInvocation(db, idOrRun);
    return row ? detailOf(db, row) : undefined;
  });
  if (!detail)
    throw new NotFoundError(
      `no invocation ${JSON.stringify(idOrRun)} in the history (see: aip history list)`,
    );
  return detail;
}
