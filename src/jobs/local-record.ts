// The training jobs this machine created (jobs.json beside the config): the API cannot list jobs, so
// `aip jobs list` shows these, and commands take a unique prefix of a remembered job id. Once a job has
// finished, its final progress is kept with it (`final`), so that listing finished jobs asks the server
// nothing. Entries written before that have no `final`, and an older aip ignores it: the file stays
// readable both ways.

import type { JobKind } from '../api/types.js';
import { NotFoundError, UsageError } from '../errors/errors.js';
import { isObject } from '../lib/json.js';
import { hasStrings, readEntries } from '../local-record/file.js';
import { updateJsonFile } from '../settings/json-store.js';
import type { JobProgress } from './shape.js';

export interface RememberedJob {
  id: string;
  kind: JobKind;
  model_id: string;
  /** team/project/name of the model when known, else its id. */
  model: string;
  base_url: string;
  created_at: string;
  /** The progress of a job that has finished (succeeded, failed, or gone): it no longer changes. */
  final?: JobProgress;
}

interface JobRecord {
  jobs: RememberedJob[];
}

function isEntry(value: unknown): value is RememberedJob {
  return hasStrings(value, ['id', 'kind', 'model_id', 'model', 'base_url', 'created_at']);
}

export function readJobRecord(file: string): JobRecord {
  return { jobs: readEntries(file, 'jobs', isEntry, 'training jobs') };
}

/** The states after which a job's progress no longer changes. */
export const FINAL_STATES: ReadonlySet<string> = new Set(['succeeded', 'failed', 'gone']);

const isCount = (v: unknown) => Number.isInteger(v) && (v as number) >= 0;

/**
 * The kept final progress of an entry, when there is one and it holds together; one that does not (a
 * file edited by hand) is as none: the job is asked about again, and its answer kept in its place.
 */
export function finalOf(entry: RememberedJob): JobProgress | undefined {
  const f: unknown = entry.final;
  if (!isObject(f) || typeof f.state !== 'string' || !FINAL_STATES.has(f.state)) return undefined;
  const metrics = f.latest_metrics;
  const ok =
    isCount(f.step) &&
    (f.num_sequences === null || isCount(f.num_sequences)) &&
    (f.error_message === null || typeof f.error_message === 'string') &&
    (metrics === null ||
      (isObject(metrics) &&
        Object.values(metrics).every((v) => typeof v === 'number' && Number.isFinite(v))));
  return ok ? (f as unknown as JobProgress) : undefined;
}

/**
 * Keeps the final progress of these jobs of `baseUrl` (only finished ones; the rest are left out), in
 * one locked write; no write when nothing changes.
 */
export function rememberFinal(
  file: string,
  baseUrl: string,
  finals: ReadonlyMap<string, JobProgress>,
): Promise<boolean> {
  return updateJsonFile(file, readJobRecord, (data) => {
    let changed = false;
    for (const job of data.jobs) {
      const final = job.base_url === baseUrl ? finals.get(job.id) : undefined;
      if (!final || !FINAL_STATES.has(final.state) || finalOf(job)?.state === final.state) continue;
      job.final = final;
      changed = true;
    }
    return changed;
  });
}

export function rememberJob(file: string, job: RememberedJob): Promise<boolean> {
  return updateJsonFile(file, readJobRecord, (data) => {
    data.jobs = data.jobs.filter((j) => !(j.id === job.id && j.base_url === job.base_url));
    data.jobs.push(job);
  });
}

/**
 * Forgets the jobs of these ids remembered against `baseUrl` (never asks the server), in one locked
 * write; returns the entries it removed (none: the file is not rewritten).
 */
export async function forgetJobs(
  file: string,
  ids: readonly string[],
  baseUrl: string,
): Promise<RememberedJob[]> {
  const gone = new Set(ids.map((id) => id.toLowerCase()));
  let removed: RememberedJob[] = [];
  await updateJsonFile(file, readJobRecord, (data) => {
    const forgets = (j: RememberedJob) => j.base_url === baseUrl && gone.has(j.id.toLowerCase());
    removed = data.jobs.filter(forgets);
    data.jobs = data.jobs.filter((j) => !forgets(j));
    return removed.length > 0;
  });
  return removed;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const MIN_PREFIX = 4;

export interface ResolvedJob {
  id: string;
  /** The local record entry, when this machine created the job. */
  entry: RememberedJob | undefined;
  /** Given by the start of a remembered id (not a whole UUID): the local record's, which may be stale. */
  byPrefix: boolean;
}

/** A job id (taken as is), or a prefix of at least 4 characters of one job created from here. */
export function resolveJob(record: JobRecord, ref: string, baseUrl: string): string {
  return resolveJobEntry(record, ref, baseUrl).id;
}

/** resolveJob, with the local record entry of the job when there is one. */
export function resolveJobEntry(record: JobRecord, ref: string, baseUrl: string): ResolvedJob {
  const known = record.jobs.filter((j) => j.base_url === baseUrl);
  if (UUID.test(ref)) {
    const id = ref.toLowerCase();
    return { id, entry: known.find((j) => j.id.toLowerCase() === id), byPrefix: false };
  }
  const matches = ref.length >= MIN_PREFIX ? known.filter((j) => j.id.startsWith(ref.toLowerCase())) : [];
  if (matches.length === 1) return { id: matches[0]!.id, entry: matches[0], byPrefix: true };
  const listing = (jobs: RememberedJob[]) =>
    jobs.slice(-10).map((j) => `${j.id}  ${j.kind}  ${j.model}  ${j.created_at}`);
  if (matches.length > 1) {
    throw new UsageError(`"${ref}" is the start of ${matches.length} job ids: give more of it`, {
      details: listing(matches),
    });
  }
  if (ref.length < MIN_PREFIX) {
    throw new UsageError(
      `"${ref}" is not a job id: give the id, or at least its first ${MIN_PREFIX} characters`,
      { details: listing(known) },
    );
  }
  // A reference of the right form that names nothing: not found, as an unknown id is (exit 3).
  throw new NotFoundError(
    `unknown job "${ref}": not a UUID, nor the start of a job created from this machine against ${baseUrl}`,
    { details: listing(known) },
  );
}
