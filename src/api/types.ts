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
