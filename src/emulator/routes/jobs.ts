// Training API routes for jobs (api-contract.md §2.3, §2.4): create RL and SFT jobs, read a job, and
// page through its events, oldest first.

import { createSftTrainingJob, createTrainingJob } from '../../validate/jobs-schema.js';
import type { Exchange } from '../exchange.js';
import { type DataSummary, rlDataSummary, sftTargetLoss } from '../metrics.js';
import { pageAfter, pageQuery } from '../paging.js';
import type { EmulatedJob, JobKind } from '../store/jobs.js';
import { QueryReader, validBody } from '../validation.js';
import type { EmulatorRouter } from './types.js';

interface RlBody {
  model_id: string;
  trajectory_groups: Array<{ trajectories: unknown[] }>;
  experimental_config?: { learning_rate?: number | null } | null;
}

interface SftBody {
  model_id: string;
  training_data_url: string;
  config?: { learning_rate?: number | number[] | null } | null;
}

const iso = (ms: number | undefined) => (ms === undefined ? null : new Date(ms).toISOString());

/** The documented answer is only {id}; the fields beyond it are what live services are seen to add. */
export function jobResponse(job: EmulatedJob) {
  return {
    id: job.id,
    status: job.status,
    kind: job.kind,
    model_id: job.model_id,
    created_at: iso(job.createdAt),
    training_start: iso(job.startedAt),
    training_end: iso(job.endedAt),
    error_message: job.status === 'failed' ? (job.events.at(-1)?.data.error_message ?? null) : null,
  };
}

function create(
  x: Exchange,
  kind: JobKind,
  fields: { model_id: string; groups: number; trajectories: number; learningRate: number; data: DataSummary },
) {
  // FastAPI validates the body first; the model is looked up after (404).
  const model =
    x.state.models.models.get(fields.model_id.toLowerCase()) ?? x.state.models.models.get(fields.model_id);
  if (!model) return x.error(404, `Model ${fields.model_id} not found`);
  const job = x.state.jobs.create({ kind, ...fields, model_id: model.id }, Date.now());
  x.send(200, jobResponse(job));
}

function jobOf(x: Exchange): EmulatedJob | undefined {
  const job = x.state.jobs.get(x.params.training_job_id!);
  if (!job) x.error(404, `Training job ${x.params.training_job_id} not found`);
  return job;
}

export function registerJobRoutes(router: EmulatorRouter): void {
  router.add('POST', '/training/v1/preview/training-jobs', {
    run: (x) => {
      const body = validBody<RlBody>(x, createTrainingJob);
      if (!body) return;
      create(x, 'rl', {
        model_id: body.model_id,
        groups: body.trajectory_groups.length,
        trajectories: body.trajectory_groups.reduce((n, g) => n + g.trajectories.length, 0),
        learningRate: body.experimental_config?.learning_rate ?? 5e-6,
        // What the job's metrics move toward: the trajectories' mean reward (metrics.ts).
        data: rlDataSummary(body.trajectory_groups),
      });
    },
  });

  router.add('POST', '/training/v1/preview/sft-training-jobs', {
    run: (x) => {
      const body = validBody<SftBody>(x, createSftTrainingJob);
      if (!body) return;
      // The data is an artifact the emulator cannot fetch; a URL of another scheme cannot resolve.
      if (!body.training_data_url.startsWith('wandb-artifact:///')) {
        return x.error(
          400,
          `Could not resolve training data ${body.training_data_url}: expected wandb-artifact:///entity/project/name:version`,
        );
      }
      const rate = body.config?.learning_rate;
      create(x, 'sft', {
        model_id: body.model_id,
        groups: 0,
        trajectories: 64,
        learningRate: (Array.isArray(rate) ? rate[0] : rate) ?? 5e-5,
        // The artifact cannot be fetched: its URL stands for the data (metrics.ts).
        data: { loss: sftTargetLoss(body.training_data_url) },
      });
    },
  });

  router.add('GET', '/training/v1/preview/training-jobs/:training_job_id', {
    run: (x) => {
      const job = jobOf(x);
      if (job) x.send(200, jobResponse(job));
    },
  });

  router.add('GET', '/training/v1/preview/training-jobs/:training_job_id/events', {
    run: (x) => {
      const query = new QueryReader(x);
      const cursor = pageQuery(query);
      if (query.answer()) return;
      const job = jobOf(x);
      if (!job) return;
      const page = pageAfter(x, job.events, cursor, { item: 'event', owner: 'job' });
      if (page) x.send(200, page);
    },
  });
}
