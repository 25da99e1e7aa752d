// The user's own prices: prices.json beside the config (or the file AIP_PRICES_FILE names), for models
// W&B publishes no price for, or to correct one that has changed. Read strictly: a price that is not a
// finite number ≥ 0, or an entry that is not understood, stops the command (exit 2) naming the file and
// the entry, since a cost counted from a wrong price is worse than none. Names are kept in a Map only:
// a model named `__proto__` or `constructor` is a name like any other.
//
//   {"models": {"<model id or wandb-artifact:/// prefix>": {"input_per_mtok": 0.1, "output_per_mtok": 0.4}}}

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { UsageError } from '../errors/errors.js';
import { isObject } from '../lib/json.js';
import { configDir } from '../settings/config-file.js';
import type { Env } from '../settings/global-options.js';

export const PRICES_FILE_NAME = 'prices.json';

export interface FilePrice {
  input_per_mtok: number;
  output_per_mtok: number;
  /** What the user says the price comes from (optional, shown by `aip usage prices`). */
  note?: string;
}

export interface PriceFile {
  file: string;
  /** Whether the file exists (a missing default file is no prices, not an error). */
  found: boolean;
  /** By the name as written (a model id, or a wandb-artifact:/// prefix). */
  models: Map<string, FilePrice>;
}

/** AIP_PRICES_FILE, else prices.json in the config directory. */
export function priceFilePath(env: Env): string {
  return env.AIP_PRICES_FILE || join(configDir(env), PRICES_FILE_NAME);
}

const ENTRY_KEYS = new Set(['input_per_mtok', 'output_per_mtok', 'note']);
const MAX_NAME = 500;

/** A name as it may appear in a message: quoted, escaped, cut. */
const shown = (name: string) => JSON.stringify(name.length > 80 ? `${name.slice(0, 80)}…` : name);

function checkName(name: string, fail: (problem: string) => never): void {
  if (name.trim() === '' || name !== name.trim())
    fail('a model name must be non-empty, without spaces around it');
  if (name.length > MAX_NAME) fail(`a model name must be at most ${MAX_NAME} characters`);
  if (/[\u0000-\u001f\u007f-\u009f]/.test(name)) fail('a model name must not hold control characters');
}

function entryOf(name: string, value: unknown, fail: (problem: string) => never): FilePrice {
  checkName(name, fail);
  if (!isObject(value)) fail('must be an object {"input_per_mtok": n, "output_per_mtok": n}');
  for (const key of Object.keys(value))
    if (!ENTRY_KEYS.has(key))
      fail(`has an unknown field ${shown(key)} (known: input_per_mtok, output_per_mtok, note)`);
  const price = (key: 'input_per_mtok' | 'output_per_mtok'): number => {
    const n = value[key];
    if (typeof n !== 'number' || !Number.isFinite(n) || n < 0)
      fail(`${key} must be a finite number ≥ 0 (dollars per million tokens)`);
    return n;
  };
  const entry: FilePrice = {
    input_per_mtok: price('input_per_mtok'),
    output_per_mtok: price('output_per_mtok'),
  };
  if (value.note !== undefined) {
    if (typeof value.note !== 'string' || value.note.length > MAX_NAME)
      fail(`note must be a string of at most ${MAX_NAME} characters`);
    entry.note = value.note;
  }
  return entry;
}

/** Parses the text of a prices file; a UsageError names the file and the entry at fault. */
export function parsePriceFile(file: string, text: string): Map<string, FilePrice> {
  const bad = (problem: string): never => {
    throw new UsageError(`prices file ${file} ${problem}: fix it or delete it (docs/usage.md describes it)`);
  };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    bad(`is not valid JSON (${(error as Error).message.split('\n')[0]})`);
  }
  if (!isObject(parsed)) bad('does not hold a JSON object');
  const top = parsed as Record<string, unknown>;
  for (const key of Object.keys(top))
    if (key !== 'models') bad(`has an unknown top-level field ${shown(key)} (only "models")`);
  const given = top.models ?? {};
  if (!isObject(given)) bad('has a "models" field that is not an object');
  const models = new Map<string, FilePrice>();
  // JSON.parse makes every key an own property, `__proto__` included; Object.entries lists them all.
  for (const [name, value] of Object.entries(given as Record<string, unknown>)) {
    models.set(
      name,
      entryOf(name, value, (problem) => bad(`entry ${shown(name)} ${problem}`)),
    );
  }
  return models;
}

/**
 * The user's prices. A missing default file is none; a missing file that AIP_PRICES_FILE names is an
 * error, as the user asked for it.
 */
export function readPriceFile(env: Env): PriceFile {
  const file = priceFilePath(env);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if ((code === 'ENOENT' || code === 'ENOTDIR') && !env.AIP_PRICES_FILE)
      return { file, found: false, models: new Map() };
    throw new UsageError(`cannot read prices file ${file}: ${code ?? (error as Error).message}`);
  }
  return { file, found: true, models: parsePriceFile(file, text) };
}
