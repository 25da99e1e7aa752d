// The bodies that create training jobs (CreateTrainingJob, CreateSFTTrainingJob) and their configs,
// as the OpenAPI document types them. The emulator validates requests with these; the CLI checks its
// --config files with them before anything is sent.

import {
  anyOf,
  anything,
  arr,
  bool,
  type Check,
  type Fields,
  int,
  literal,
  nullable,
  num,
  obj,
  record,
  str,
  uuid,
} from './schema.js';
import { trajectoryGroup } from './trajectory.js';

/** ExperimentalTrainingConfig: every field optional and nullable; the server gives no defaults. */
export const EXPERIMENTAL_FIELDS: Fields = {
  advantage_balance: nullable(num),
  allow_training_without_logprobs: nullable(bool),
  epsilon: nullable(num),
  epsilon_high: nullable(num),
  importance_sampling_level: nullable(literal('token', 'sequence', 'average', 'geometric_average')),
  kimi_k2_tau: nullable(num),
  kl_penalty_coef: nullable(num),
  kl_penalty_reference_step: nullable(int),
  kl_penalty_source: nullable(literal('current_learner', 'sample')),
  kl_penalty_step_lag: nullable(int),
  kl_ref_adapter_path: nullable(str),
  learning_rate: nullable(num),
  logprob_calculation_chunk_size: nullable(int),
  loss_fn: nullable(literal('cispo', 'ppo')),
  mask_prob_ratio: nullable(bool),
  max_negative_advantage_importance_sampling_weight: nullable(num),
  normalize_advantages: nullable(bool),
  num_trajectories_learning_rate_multiplier_power: nullable(num),
  packed_sequence_length: nullable(int),
  plot_tensors: nullable(bool),
  ppo: nullable(bool),
  precalculate_logprobs: nullable(bool),
  scale_learning_rate_by_reward_std_dev: nullable(bool),
  scale_rewards: nullable(bool),
  truncated_importance_sampling: nullable(num),
};

export const experimentalTrainingConfig: Check = obj({}, EXPERIMENTAL_FIELDS);

/** SFTTrainingConfig, with assistant_turns of the later revision. */
export const SFT_CONFIG_FIELDS: Fields = {
  batch_size: nullable(anyOf('a whole number or "auto"', int, literal('auto'))),
  learning_rate: nullable(anyOf('a number or a list of numbers (one per batch)', num, arr(num))),
  metric_logging: nullable(record(anything)),
  assistant_turns: literal('all', 'last'),
};

export const sftTrainingConfig: Check = obj({}, SFT_CONFIG_FIELDS);

export const createTrainingJob: Check = obj(
  { model_id: uuid, trajectory_groups: arr(trajectoryGroup) },
  { experimental_config: nullable(experimentalTrainingConfig) },
);

export const createSftTrainingJob: Check = obj(
  { model_id: uuid, training_data_url: str },
  { config: nullable(sftTrainingConfig), experimental_config: nullable(record(anything)) },
);
