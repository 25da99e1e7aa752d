// Training jobs and their schedules. A job's events are not driven by timers: each request first
// brings every job up to the current time (advance), so what anyone observes is exactly what the
// schedule says for that moment, and nothing runs once the emulator is idle.
//
// Schedule of a job created at t, with step time s and n steps:
//   t + s          training_started {num_sequences: n}
//   t + (k+1)·s    gradient_step k (and a new checkpoint on the model), for k = 1…n
//   t + (n+2)·s    training_ended {}
// A job planned to fail at step k emits training_failed {error_message} in place of gradient step k.

import { gradientStep } from '../metrics.js';
import { seededRandom, seedFrom } from '../random.js';
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
  events: EmulatedEvent[];
  /** Schedule slots emitted so far (slot 0: started, 1…n: steps, n+1: ended). */
  slots: number;
  startedAt?: number;
  endedAt?: number;
  status: 'queued' | 'running' | 'succeeded' | 'failed';
}

export const DEFAULT_SFT_STEPS = 6;
export const MAX_STEPS = 10_000;

/** A version-4-shaped UUID from a seeded generator, so that ids repeat from run to run. */
function uuidFrom(random: () => number): string {
  const hex = Array.from({ length: 32 }, () => Math.floor(random() * 16).toString(16));
  hex[12] = '4';
  hex[16] = ((Number.parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16);
  const h = hex.join('');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

export class JobStore {
  readonly jobs = new Map<string, EmulatedJob>();
  /** Plans for the next jobs, used up in order. */
  plans: Array<JobPlan & { remaining: number }> = [];
  private random: () => number;

  constructor(
    private readonly models: ModelStore,
    private readonly seed: number,
    public stepMs: number,
  ) {
    this.random = seededRandom(seed);
  }

  create(
    fields: { kind: JobKind; model_id: string; groups: number; trajectories: number; learningRate: number },
    now: number,
  ): EmulatedJob {
    const plan = this.plans.find((p) => p.remaining > 0);
    if (plan) plan.remaining--;
    const steps = Math.min(
      MAX_STEPS,
      plan?.steps ?? (fields.kind === 'rl' ? Math.max(1, fields.groups) : DEFAULT_SFT_STEPS),
    );
    const job: EmulatedJob = {
      id: uuidFrom(this.random),
      ...fields,
      createdAt: now,
      stepMs: this.stepMs,
      steps,
      failAtStep: plan?.fail_at_step,
      errorMessage: plan?.error_message ?? 'Training failed: the worker ran out of GPU memory',
      events: [],
      slots: 0,
      status: 'queued',
    };
    this.jobs.set(job.id, job);
    return job;
  }

  /** Emits every event due by `now`, for every job. */
  advance(now: number): void {
    for (const job of this.jobs.values()) {
      while (job.status === 'queued' || job.status === 'running') {
        const due = job.createdAt + (job.slots + 1) * job.stepMs;
        if (due > now) break;
        this.emit(job, due);
      }
    }
  }

  private emit(job: EmulatedJob, at: number): void {
    const slot = job.slots++;
    const event = (type: EventType, data: Record<string, unknown>) => {
      job.events.push({
        id: uuidFrom(seededRandom(seedFrom(`${this.seed}:${job.id}:${job.events.length}`))),
        type,
        data,
      });
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
        seed: `${this.seed}:${job.id}`,
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
    this.jobs.clear();
    this.plans = [];
    this.random = seededRandom(this.seed);
  }
}
