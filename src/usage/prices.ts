// What a model's tokens cost: the built-in table (price-table.ts: the platform's own published prices),
// overridden entry by entry by the user's file (price-file.ts). Where neither knows a model, its price
// is undefined and every cost that needs it is "unknown": aip never guesses a price.
//
// A trained checkpoint (wandb-artifact:///team/project/name:stepN) has no price of its own: W&B bills
// LoRA inference at the rate of the model it was trained from (price-table.ts LORA_PRICING_SOURCE), so
// its base model is looked up in the local model record (models.json), the one place that knows it.
// The user's file may also price a checkpoint, or every checkpoint under a prefix, directly.

import type { Context } from '../context.js';
import { recordFile } from '../local-record/file.js';
import { fullName, readModelRecord } from '../models/local-record.js';
import { readPriceFile } from './price-file.js';
import { BUILT_IN_PRICES, PRICES_READ_ON, TRAINING_PRICING_SOURCE } from './price-table.js';

export interface Price {
  input_per_mtok: number;
  output_per_mtok: number;
  /** The page the price was read from (URL), or the user's prices file (a path). */
  source: string;
  /** Set when a trained checkpoint is priced as the model it was trained from. */
  base_model?: string;
}

/** One row of the table in force. */
export interface PriceEntry extends Price {
  /** A model id, or (from the user's file only) a wandb-artifact:/// prefix. */
  model: string;
  origin: 'built-in' | 'file';
  /** Built-in prices: when the source was read. */
  read_on?: string;
  /** The user's note on where a price comes from. */
  note?: string;
}

export interface PriceTable {
  /** Model ids, by lowercase id (the user's entries have replaced the built-in ones). */
  models: Map<string, PriceEntry>;
  /** wandb-artifact:/// prefixes from the user's file, longest first. */
  artifactPrefixes: PriceEntry[];
  /** team/project/name of each trained model this machine made → its base model (null: records disagree). */
  baseModels: Map<string, string | null>;
  /** Training jobs (steps, tokens trained on): free during the public preview. */
  training: Price;
  /** Checkpoint storage: no price per GB is published. */
  storage: undefined;
  /** The user's prices file, and whether it exists. */
  file: { path: string; found: boolean };
}

export const ARTIFACT_SCHEME = 'wandb-artifact://';

/** team/project/name of a checkpoint URI (alias dropped), or undefined for anything else. */
export function artifactName(model: string): string | undefined {
  if (!model.startsWith(ARTIFACT_SCHEME)) return undefined;
  // Three slashes is the documented form; one docs sample shows two (api-contract.md §2.8).
  const path = model.slice(ARTIFACT_SCHEME.length).replace(/^\//, '');
  const parts = path.split('/');
  if (parts.length !== 3 || parts.some((part) => part === '')) return undefined;
  const last = parts[2]!;
  const colon = last.indexOf(':');
  parts[2] = colon === -1 ? last : last.slice(0, colon);
  return parts[2] === '' ? undefined : parts.join('/');
}

function baseModelsOf(ctx: Pick<Context, 'env'>): Map<string, string | null> {
  const bases = new Map<string, string | null>();
  for (const entry of readModelRecord(recordFile(ctx, 'models')).models) {
    const name = fullName(entry);
    const known = bases.get(name);
    // The same name made against two base URLs (the emulator, production) from different bases.
    bases.set(name, known === undefined || known === entry.base_model ? entry.base_model : null);
  }
  return bases;
}

/** The built-in table, the user's file over it, and the base models of this machine's checkpoints. */
export function loadPrices(ctx: Pick<Context, 'env'>): PriceTable {
  const models = new Map<string, PriceEntry>();
  for (const p of BUILT_IN_PRICES)
    models.set(p.model.toLowerCase(), { ...p, origin: 'built-in', read_on: PRICES_READ_ON });
  const file = readPriceFile(ctx.env);
  const artifactPrefixes: PriceEntry[] = [];
  for (const [model, price] of file.models) {
    const entry: PriceEntry = { model, ...price, source: file.file, origin: 'file' };
    if (model.startsWith(ARTIFACT_SCHEME)) artifactPrefixes.push(entry);
    else models.set(model.toLowerCase(), entry);
  }
  artifactPrefixes.sort((a, b) => b.model.length - a.model.length);
  return {
    models,
    artifactPrefixes,
    baseModels: baseModelsOf(ctx),
    training: { input_per_mtok: 0, output_per_mtok: 0, source: TRAINING_PRICING_SOURCE },
    storage: undefined,
    file: { path: file.file, found: file.found },
  };
}

/** Whether `prefix` covers `model` whole segments at a time ("…/agent" is not "…/agent-2"). */
function covers(prefix: string, model: string): boolean {
  if (model === prefix) return true;
  if (!model.startsWith(prefix)) return false;
  return /[/:]$/.test(prefix) || model[prefix.length] === '/' || model[prefix.length] === ':';
}

const priceOnly = (entry: PriceEntry): Price => ({
  input_per_mtok: entry.input_per_mtok,
  output_per_mtok: entry.output_per_mtok,
  source: entry.source,
});

/**
 * What a million tokens of `model` cost, in and out; undefined when no price is known. Both APIs bill
 * the same rates (the Training API's inference "matches Serverless Inference pricing"), so `api` does
 * not change the answer today; it is asked so that it can.
 */
export function priceOf(table: PriceTable, model: string, _api: 'training' | 'inference'): Price | undefined {
  const exact = table.models.get(model.toLowerCase());
  if (exact) return priceOnly(exact);
  if (!model.startsWith(ARTIFACT_SCHEME)) return undefined;
  const prefixed = table.artifactPrefixes.find((entry) => covers(entry.model, model));
  if (prefixed) return priceOnly(prefixed);
  const name = artifactName(model);
  const base = name === undefined ? undefined : table.baseModels.get(name);
  if (!base || base.startsWith(ARTIFACT_SCHEME)) return undefined;
  const price = table.models.get(base.toLowerCase());
  return price ? { ...priceOnly(price), base_model: price.model } : undefined;
}

/** Dollars for these tokens at this price. */
export function costOf(price: Price, promptTokens: number, completionTokens: number): number {
  return (promptTokens * price.input_per_mtok + completionTokens * price.output_per_mtok) / 1e6;
}
