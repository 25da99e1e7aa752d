// The models the emulated Inference API serves (api-contract.md §3.4, §2.8).

export const INFERENCE_MODELS = [
  'meta-llama/Llama-3.1-8B-Instruct',
  'meta-llama/Llama-3.1-70B-Instruct',
  'openai/gpt-oss-20b',
  'openai/gpt-oss-120b',
  'OpenPipe/Qwen3-14B-Instruct',
  'Qwen/Qwen3-30B-A3B-Instruct-2507',
  'deepseek-ai/DeepSeek-V3.1',
] as const;

/**
 * Models that refuse `logprobs: true` with a 422: the contract says logprobs are model-dependent
 * (api-contract.md §3.3), so one model of the catalog lacks them, and that answer can be met offline.
 */
export const LOGPROBS_UNSUPPORTED = ['deepseek-ai/DeepSeek-V3.1'] as const;

/** 2025-01-01T00:00:00Z: a fixed `created`, so that answers are the same on every run. */
export const CATALOG_CREATED = 1_735_689_600;
