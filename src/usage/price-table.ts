// The prices aip knows without being told: only what the platform itself publishes, each with the page
// it was read from and when. A model W&B publishes no price for is simply absent (its cost is
// "unknown"); a number from anywhere else (third-party calculators disagree with W&B's own pages) is
// never put here. docs/usage.md lists the same table, and says where sources disagree.

/** When the pages below were read (stored copies of them; the live pages may have changed since). */
export const PRICES_READ_ON = '2026-11-26';

export interface BuiltInPrice {
  model: string;
  input_per_mtok: number;
  output_per_mtok: number;
  source: string;
}

/** $ per million tokens on Serverless Inference, from each model's page on wandb.ai. */
export const BUILT_IN_PRICES: readonly BuiltInPrice[] = [
  {
    model: 'openai/gpt-oss-20b',
    input_per_mtok: 0.05,
    output_per_mtok: 0.2,
    source: 'https://wandb.ai/site/inference/openai-gpt-oss-20b',
  },
  {
    model: 'meta-llama/Llama-3.3-70B-Instruct',
    input_per_mtok: 0.71,
    output_per_mtok: 0.71,
    source: 'https://wandb.ai/site/inference/meta-llama-33-70b',
  },
  {
    model: 'OpenPipe/Qwen3-14B-Instruct',
    input_per_mtok: 0.05,
    output_per_mtok: 0.22,
    source: 'https://wandb.ai/site/inference/cw_openpipe_qwen3-14b-instruct',
  },
];

/**
 * Trained checkpoints (LoRAs) are billed as the model they were trained from: "Calls that use LoRA
 * artifacts are billed at the same rates as standard model inference. There are no extra fees for
 * serving custom LoRAs" (the Pricing section of this page); the Serverless Training usage page says
 * its inference "matches Serverless Inference pricing".
 */
export const LORA_PRICING_SOURCE = 'https://docs.wandb.ai/inference/lora';

/** "Training is free during the public preview period." */
export const TRAINING_PRICING_SOURCE = 'https://docs.wandb.ai/serverless-training/usage-limits';

/**
 * Checkpoint storage is "billed monthly based on total checkpoint size and your pricing plan", at least
 * 5 GB free; no price per GB is published, so aip counts none.
 */
export const STORAGE_PRICING_SOURCE = TRAINING_PRICING_SOURCE;
