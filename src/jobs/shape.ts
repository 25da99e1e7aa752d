// One JSON shape for a job, whichever command prints it (`jobs list`, `jobs get`, `jobs create`, with
// and without --wait, `jobs wait`): what aip knows of the job (from its local record, else from the
// server) and its progress (derived from its events, or kept in the local record once it finished).
// docs/commands.md documents it; test/commands/job-shape.test.ts holds the four commands to it.

import type { JobResponse } from '../api/types.js';
import type { Context } from '../context.js';
import { isObject } from '../lib/json.js';
import { fullName, readModelRecord } from '../models/local-record.js';
import { modelRecordFile } from '../models/resolve.js';
import { isoTime } from '../output/time.js';
import type { RememberedJob } from './local-record.js';
import type { JobState, JobStatus } from './state.js';

/**
 * The states of the events (state.ts), and two only `jobs list` gives: `gone` (the server no longer
 * knows the job, or its model is no longer known here) and `unknown` (its events could not be read).
 */
export type JobStateName = JobStatus | 'gone' | 'unknown';

/** How far the job got: what its events say. */
export interface JobProgress {
  state: JobStateName;
  /** Gradient steps seen. */
  step: number;
  /** The steps to expect (training_started's num_sequences); null before the job started. */
  num_sequences: number | null;
  error_message: string | null;
  /** The numbers of the latest gradient_step (the contract's metrics are numbers). */
  latest_metrics: Record<string, number> | null;
}

/** What is known of the job apart from its progress. */
export interface JobAbout {
  /** rl or sft; null for a job not created here whose server does not say. */
  kind: string | null;
  model_id: string | null;
  /** team/project/name of the model when this machine knows it, else its id. */
  model: string | null;
  /** ISO 8601, UTC. */
  created_at: string | null;
}

export interface JobJson extends JobAbout, JobProgress {
  id: string;
}

/** A metrics object a server sent, kept to what it may hold: finite numbers, a bounded count. */
const MAX_METRICS = 256;

export function metricsOf(data: unknown): Record<string, number> | null {
  if (!isObject(data)) return null;
  const numbers = Object.entries(data).filter(
    (e): e is [string, number] => typeof e[1] === 'number' && Number.isFinite(e[1]),
  );
  return Object.fromEntries(numbers.slice(0, MAX_METRICS));
}

export function progressOf(state: JobState): JobProgress {
  return {
    state: state.status,
    step: state.step,
    num_sequences: state.total ?? null,
    error_message: state.error_message ?? null,
    latest_metrics: state.latest ? metricsOf(state.latest) : null,
  };
}

/** A job that was just created and whose events were not read: no events is queued. */
export const JUST_CREATED: JobProgress = {
  state: 'queued',
  step: 0,
  num_sequences: null,
  error_message: null,
  latest_metrics: null,
};

/** The job as JSON, its keys always in this order. */
export function jobJson(id: string, about: JobAbout, progress: JobProgress): JobJson {
  return {
    id,
    kind: about.kind,
    model_id: about.model_id,
    model: about.model,
    state: progress.state,
    step: progress.step,
    num_sequences: progress.num_sequences,
    error_message: progress.error_message,
    latest_metrics: progress.latest_metrics,
    created_at: about.created_at,
  };
}

export function aboutEntry(entry: RememberedJob): JobAbout {
  return {
    kind: entry.kind,
    model_id: entry.model_id,
    model: entry.model,
    created_at: isoTime(entry.created_at),
  };
}

const text = (value: unknown): string | null => (typeof value === 'string' && value ? value : null);

/**
 * What this machine remembers of the job, else what the server said of it (fields the contract does
 * not publish, each taken only when it is of the right type), with the model named when it is known.
 */
export function aboutJob(ctx: Context, entry: RememberedJob | undefined, server?: JobResponse): JobAbout {
  if (entry) return aboutEntry(entry);
  const modelId = text(server?.model_id);
  const model = modelId
    ? readModelRecord(modelRecordFile(ctx)).models.find(
        (m) => m.id === modelId && m.base_url === ctx.serviceUrl('training'),
      )
    : undefined;
  return {
    kind: text(server?.kind),
    model_id: modelId,
    model: model ? fullName(model) : modelId,
    created_at: isoTime(server?.created_at),
  };
}
