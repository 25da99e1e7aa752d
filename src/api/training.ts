// The Training API (product.md §1, api-contract.md §2), one method per operation a command uses.
// Paths are relative to the base URL, which ends in /v1; ids go through p`` so they stay one segment.

import type { HttpClient, HttpResponse, RequestOptions } from './http.js';
import type {
  Checkpoint,
  CreateRlJob,
  CreateSftJob,
  DeleteCheckpointsResponse,
  DeleteModelResponse,
  JobEvent,
  JobResponse,
  LogRequest,
  ModelCreate,
  ModelResponse,
  Page,
  SortOrder,
} from './types.js';
import { p } from './url.js';

/**
 * The creates of training jobs, as requests: sent with TrainingClient.send (a POST, never retried once
 * it may have reached the server, so never two jobs) or shown by --dry-run.
 */
export function rlJobRequest(body: CreateRlJob): RequestOptions {
  return { method: 'POST', path: '/preview/training-jobs', body };
}

export function sftJobRequest(body: CreateSftJob): RequestOptions {
  return { method: 'POST', path: '/preview/sft-training-jobs', body };
}

/** For requests made while waiting: the wait's deadline, its Ctrl-C, and its own retry policy. */
export type PollOptions = Pick<RequestOptions, 'timeoutMs' | 'signal' | 'retries'>;

export interface CheckpointQuery {
  after?: string;
  limit?: number;
  order?: SortOrder;
}

export class TrainingClient {
  constructor(readonly http: HttpClient) {}

  /**
   * Any JSON (its shape is unpublished), or text. A 503 says a component failed: that answer is a
   * result to show, not an error to retry.
   */
  async systemCheck(): Promise<HttpResponse<unknown>> {
    return this.http.request({
      method: 'GET',
      path: '/system-check',
      auth: false,
      accept: (status) => (status >= 200 && status < 300) || status === 503,
    });
  }

  async baseModels(): Promise<string[]> {
    return (await this.http.request<string[]>({ method: 'GET', path: '/preview/base-models' })).data;
  }

  /** A create: never retried once it may have reached the server. */
  async createModel(body: ModelCreate): Promise<ModelResponse> {
    return (await this.http.request<ModelResponse>({ method: 'POST', path: '/preview/models', body })).data;
  }

  /** The whole response: `attempts` > 1 means an earlier, lost attempt may have done the work. */
  deleteModel(id: string): Promise<HttpResponse<DeleteModelResponse>> {
    return this.http.request<DeleteModelResponse>({ method: 'DELETE', path: p`/preview/models/${id}` });
  }

  async listCheckpoints(id: string, query: CheckpointQuery = {}): Promise<Page<Checkpoint>> {
    const path = p`/preview/models/${id}/checkpoints`;
    return (
      await this.http.request<Page<Checkpoint>>({ method: 'GET', path, query: { ...query }, kind: 'page' })
    ).data;
  }

  /** The whole response: `attempts` > 1 means an earlier, lost attempt may have deleted some steps. */
  deleteCheckpoints(id: string, steps: number[]): Promise<HttpResponse<DeleteCheckpointsResponse>> {
    const path = p`/preview/models/${id}/checkpoints`;
    return this.http.request<DeleteCheckpointsResponse>({ method: 'DELETE', path, body: { steps } });
  }

  /** Not retried: the server computes and logs metrics for each call. */
  async logTrajectories(id: string, body: LogRequest): Promise<unknown> {
    return (await this.http.request({ method: 'POST', path: p`/preview/models/${id}/log`, body })).data;
  }

  async send<T>(request: RequestOptions): Promise<T> {
    return (await this.http.request<T>(request)).data;
  }

  async getJob(id: string, options: PollOptions = {}): Promise<JobResponse> {
    return (
      await this.http.request<JobResponse>({
        method: 'GET',
        path: p`/preview/training-jobs/${id}`,
        ...options,
      })
    ).data;
  }

  async listEvents(
    id: string,
    query: { after?: string; limit?: number } = {},
    options: PollOptions = {},
  ): Promise<Page<JobEvent>> {
    const path = p`/preview/training-jobs/${id}/events`;
    return (
      await this.http.request<Page<JobEvent>>({
        method: 'GET',
        path,
        query: { ...query },
        kind: 'page',
        ...options,
      })
    ).data;
  }
}
