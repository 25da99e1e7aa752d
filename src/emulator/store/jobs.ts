// Training jobs and their schedules. A job's events are not driven by timers: each request first
// brings every job up to the current time (advance), so what anyone observes is exactly what the
// schedule says for that moment, and nothing runs once the emulator is idle.
//
// Schedule of a job created at t, with step time s and n steps:
//   t + s          training_started {num_sequences: n}
//   t + (k+1)·s    gradient_step k (and a new checkpoint on the model), for k = 1…n
//   t + (n+2)·s    training_ended {}
// A job planned to fail at step k emits training_failed {error_message} in place of gradient step k.
// A job keeps what its metrics follow (metrics.ts): the summary of its data and where the model was
// when it was created, so that a restarted emulator reports the steps still to come as it would have.

import { randomUUID } from 'node:crypto';
import { seededRandom, seedFrom } from '../../lib/seeded-random.js';
import { noPersistence, type Persistence, seqId } from '../durable/persistence.js';
import { type DataSummary, gradientStep, type StartingPoint, startingPoint } from '../metrics.js';
import type { ModelStore } from './models.js';

export type JobKind = 'rl' | 'sft';
export type EventType = 'training_started' | 'gradient_step' | 'training_ended' | 'training_failed';

export interface EmulatedEvent {
  id: string;
  type: EventType;
  data: Record<string, unknown>;
}

/** How the next jobs will go; set through /_emulator/job-plans (tests and demos). */
export interface JobPlan {
  steps?: number;
  fail_at_step?: number;
  error_message?: string;
}

export interface EmulatedJob {
  id: string;
  kind: JobKind;
  model_id: string;
  createdAt: number;
  /** The step time when the job was created: a later change of pace does not re-time it. */
  stepMs: number;
  steps: number;
  failAtStep: number | undefined;
  errorMessage: string;
  learningRate: number;
  groups: number;
  trajectories: number;
  /** What the data trained on says of the metrics; absent for jobs made without (the demo's) or before. */
  data?: DataSummary;
  /** Where the model was when the job was created; absent for jobs kept from before it was kept. */
  start?: StartingPoint;
  events: EmulatedEvent[];
  /** Schedule slots emitted so far (slot 0: started, 1…n: steps, n+1: ended). */
  slots: number;
  startedAt?: number;
  endedAt?: number;
  status: 'queued' | 'running' | 'succeeded' | 'failed';
}

export const DEFAULT_SFT_STEPS = 6;
export const MAX_STEPS = 10_000;

/** A version-4-shaped UUID from a seeded generator: the same seed, the same ids (events; --seed). */
function uuidFrom(random: () => number): string {
  const hex = Array.from({ length: 32 }, () => Math.floor(random() * 16).toString(16));
  hex[12] = '4';
  hex[16] = ((Number.parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16);
  const h = hex.join('');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/** A job as the state directory keeps it: its events are documents of their own. */
type StoredJob = Omit<EmulatedJob, 'events'>;

export class JobStore {
  /**
   * Jobs read so far: every job not yet ended (read at start-up), those created since, and those asked
   * for since; a finished job stays on disk until someone asks for it, so that start-up reads only the
   * few still running of 100,000 jobs, not all of them with their events.
   */
  private readonly loaded = new Map<string, EmulatedJob>();
  /** Jobs there are, read or not: counted by SQLite the first time it is asked. */
  private total: number | undefined;
  /** Plans for the next jobs, used up in order. */
  plans: Array<JobPlan & { remaining: number }> = [];
  /** Jobs not yet ended: the only ones `advance` has to look at. */
  private readonly active = new Set<EmulatedJob>();
  /** Jobs ever created here: with --seed, the n-th job's id is the seed's n-th. */
  private created = 0;

  constructor(
    private readonly models: ModelStore,
    /** --seed: job ids, event ids and metrics the same on every run; without it, job ids are random. */
    private readonly seed: number | undefined,
    public stepMs: number,
    private readonly persist: Persistence = noPersistence,
  ) {
    // Only the jobs still to run (an index of SQLite's: sqlite.ts); the others are read when asked for.
    for (const doc of persist.listActiveJobs<StoredJob>()) this.active.add(this.withEvents(doc.value));
    this.created = persist.get<{ created: number }>('meta', 'jobs')?.value.created ?? 0;
  }

  /** A stored job with its events, kept as read. */
  private withEvents(stored: StoredJob): EmulatedJob {
    const events = this.persist.listPrefix<EmulatedEvent>('event', `${stored.id}/`).map((doc) => doc.value);
    const job: EmulatedJob = { ...stored, events };
    this.loaded.set(job.id, job);
    return job;
  }

  /** The job with this id, read from the state directory the first time it is asked for. */
  get(id: string): EmulatedJob | undefined {
    const job = this.loaded.get(id);
    if (job || !this.persist.durable) return job;
    const stored = this.persist.get<StoredJob>('job', id);
    return stored ? this.withEvents(stored.value) : undefined;
  }

  /** How many jobs there are. */
  get size(): number {
    this.total ??= this.persist.durable ? this.persist.count('job') : this.loaded.size;
    return this.total;
  }

  /** Every job (all read, for the control routes and the demo). */
  all(): EmulatedJob[] {
    if (this.loaded.size < this.size) {
      const events = new Map<string, EmulatedEvent[]>();
      for (const { id, value } of this.persist.list<EmulatedEvent>('event')) {
        const jobId = id.slice(0, id.lastIndexOf('/'));
        const list = events.get(jobId);
        if (list) list.push(value);
        else events.set(jobId, [value]);
      }
      for (const { value } of this.persist.list<StoredJob>('job'))
        if (!this.loaded.has(value.id))
          this.loaded.set(value.id, { ...value, events: events.get(value.id) ?? [] });
    }
    return [...this.loaded.values()];
  }

  /** Events there are (for status): counted by SQLite when they are kept there. */
  eventCount(): number {
    if (this.persist.durable) return this.persist.count('event');
    let events = 0;
    for (const job of this.loaded.values()) events += job.events.length;
    return events;
  }

  private newId(): string {
    const n = ++this.created;
    this.persist.put('meta', 'jobs', { created: n });
    return this.seed === undefined ? randomUUID() : uuidFrom(seededRandom(seedFrom(`${this.seed}:job:${n}`)));
  }

  private save(job: EmulatedJob): void {
    const { events: _events, ...stored } = job;
    this.persist.put('job', job.id, stored);
  }

  create(
    fields: {
      kind: JobKind;
      model_id: string;
      groups: number;
      trajectories: number;
      learningRate: number;
      data?: DataSummary;
    },
    now: number,
  ): EmulatedJob {
    const plan = this.plans.find((p) => p.remaining > 0);
    if (plan) plan.remaining--;
    const steps = Math.min(
      MAX_STEPS,
      plan?.steps ?? (fields.kind === 'rl' ? Math.max(1, fields.groups) : DEFAULT_SFT_STEPS),
    );
    const job = this.persist.batch(() => {
      const job: EmulatedJob = {
        id: this.newId(),
        ...fields,
        start: startingPoint(this.models.checkpointsOf(fields.model_id).at(-1)?.metrics, fields.data ?? {}),
        createdAt: now,
        stepMs: this.stepMs,
        steps,
        failAtStep: plan?.fail_at_step,
        errorMessage: plan?.error_message ?? 'Training failed: the worker ran out of GPU memory',
        events: [],
        slots: 0,
        status: 'queued',
      };
      this.save(job);
      return job;
    });
    // Known once written: a create refused for want of space (StorageFullError) leaves no job behind.
    this.loaded.set(job.id, job);
    if (this.total !== undefined) this.total++;
    this.active.add(job);
    return job;
  }

  /**
   * Emits every event due by `now`, for every job not yet ended. After a restart the events of the
   * time the emulator was down come at once, each as it was scheduled: a job keeps to the wall clock.
   */
  advance(now: number): void {
    for (const job of this.active) {
      // Most jobs have nothing due: passed over before anything is copied.
      if (job.createdAt + (job.slots + 1) * job.stepMs > now) continue;
      const before = job.slots;
      // As it was, to be put back if what it becomes cannot be written (a full disk: StorageFullError),
      // so that what is served is what is kept; it moves on when the write can be made.
      const was = { ...job };
      const events = job.events.length;
      const checkpoints = this.models.checkpointsOf(job.model_id);
      const checkpointCount = checkpoints.length;
      try {
        this.persist.batch(() => {
          while (job.status === 'queued' || job.status === 'running') {
            const due = job.createdAt + (job.slots + 1) * job.stepMs;
            if (due > now) break;
            this.emit(job, due);
          }
          if (job.slots !== before) this.save(job);
        });
      } catch (error) {
        for (const key of Object.keys(job))
          if (!(key in was)) delete (job as unknown as Record<string, unknown>)[key];
        Object.assign(job, was);
        job.events.length = events;
        this.models.putBackCheckpoints(job.model_id, checkpoints, checkpointCount);
        throw error;
      }
      if (job.status !== 'queued' && job.status !== 'running') this.active.delete(job);
    }
  }

  private emit(job: EmulatedJob, at: number): void {
    const slot = job.slots++;
    const event = (type: EventType, data: Record<string, unknown>) => {
      const index = job.events.length;
      const made: EmulatedEvent = {
        id: uuidFrom(seededRandom(seedFrom(`${this.seed ?? 0}:${job.id}:${index}`))),
        type,
        data,
      };
      this.persist.put('event', `${job.id}/${seqId(index)}`, made);
      job.events.push(made);
    };
    if (slot === 0) {
      job.status = 'running';
      job.startedAt = at;
      event('training_started', { num_sequences: job.steps });
      return;
    }
    if (!this.models.models.has(job.model_id)) {
      this.fail(job, at, 'the model was deleted while training', event);
      return;
    }
    if (slot <= job.steps) {
      if (slot === job.failAtStep) {
        this.fail(job, at, job.errorMessage, event);
        return;
      }
      const data = gradientStep({
        kind: job.kind,
        step: slot,
        steps: job.steps,
        learningRate: job.learningRate,
        groups: job.groups,
        trajectories: job.trajectories,
        seed: `${this.seed ?? 0}:${job.id}`,
        data: job.data,
        start: job.start,
      });
      event('gradient_step', data);
      const last = this.models.checkpointsOf(job.model_id).at(-1)?.step ?? 0;
      const metrics: Record<string, number> =
        job.kind === 'rl' ? { reward: data.reward!, loss: data.loss! } : { loss: data.loss! };
      this.models.addCheckpoints(job.model_id, [last + 1], metrics);
      return;
    }
    job.status = 'succeeded';
    job.endedAt = at;
    event('training_ended', {});
  }

  private fail(
    job: EmulatedJob,
    at: number,
    message: string,
    event: (type: EventType, data: Record<string, unknown>) => void,
  ): void {
    job.status = 'failed';
    job.endedAt = at;
    event('training_failed', { error_message: message });
  }

  clear(): void {
    this.persist.batch(() => {
      this.persist.removePrefix('job', '');
      this.persist.removePrefix('event', '');
      this.persist.remove('meta', 'jobs');
    });
    this.loaded.clear();
    this.total = 0;
    this.active.clear();
    this.plans = [];
    this.created = 0;
  }
}
