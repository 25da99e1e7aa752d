// The Training API's request and response bodies (api-contract.md §2.5), as aip uses them.

export interface ModelCreate {
  entity?: string | null;
  project: string;
  name: string;
  base_model: string;
  return_existing?: boolean;
}

export interface ModelResponse {
  id: string;
  entity: string;
  project: string;
  name: string;
  base_model: string;
  run_id?: string | null;
}

export interface DeleteModelResponse {
  model_id: string;
  deleted_checkpoints: number;
  deleted_run: boolean;
}

export interface Checkpoint {
  id: string;
  step: number;
  metrics: Record<string, number>;
}

/** The OpenAI-style cursor page of the list endpoints. */
export interface Page<T> {
  object?: string;
  data: T[];
  first_id?: string;
  last_id?: string;
  has_more: boolean;
}

export interface DeleteCheckpointsResponse {
  deleted_count: number;
  not_found_steps: number[];
}

export interface LogRequest {
  split: string;
  trajectory_groups: unknown[];
}

export type SortOrder = 'asc' | 'desc';

export type JobKind = 'rl' | 'sft';

/** Documented as {id} only; live services add status and timestamps, which aip treats as optional. */
export interface JobResponse {
  id: string;
  status?: string;
  kind?: string;
  model_id?: string;
  created_at?: string;
  training_start?: string | null;
  training_end?: string | null;
  error_message?: string | null;
}

export type JobEventType = 'training_started' | 'gradient_step' | 'training_ended' | 'training_failed';

export interface JobEvent {
  id: string;
  type: JobEventType | string;
  data: Record<string, unknown>;
}

export interface CreateRlJob {
  model_id: string;
  trajectory_groups: unknown[];
  experimental_config?: Record<string, unknown> | null;
}

export interface CreateSftJob {
  model_id: string;
  training_data_url: string;
  config?: Record<string, unknown> | null;
  experimental_config?: Record<string, unknown> | null;
}
