// The local records (models.json, jobs.json beside the config) are lists of entries under one key. A
// missing file is an empty list; a damaged one is reported, naming the file, and never overwritten.

import { isAscii } from 'node:buffer';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Context } from '../context.js';
import { UsageError } from '../errors/errors.js';
import { isObject } from '../lib/json.js';
import { configDir } from '../settings/config-file.js';

/** The record's file; only the environment is needed (completion has no Context's settings to offer). */
export function recordFile(ctx: Pick<Context, 'env'>, name: 'models' | 'jobs'): string {
  return join(configDir(ctx.env), `${name}.json`);
}

/**
 * The file's text. A record is almost always ASCII (ids, names, dates), and ASCII read as latin1 is the
 * same text, made without UTF-8 decoding: a TAB over 10,000 jobs reads 3 MB, which readFileSync's
 * 'utf8' read about a third slower. Anything else is decoded as UTF-8, as before.
 */
function decode(bytes: Buffer): string {
  return isAscii(bytes) ? bytes.toString('latin1') : bytes.toString('utf8');
}

/** Entries of `key` in the file, each checked by `isEntry`; `what` names them in messages. */
export function readEntries<T>(
  file: string,
  key: string,
  isEntry: (value: unknown) => value is T,
  what: string,
): T[] {
  let text: string;
  try {
    text = decode(readFileSync(file));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw new UsageError(`cannot read ${file}: ${(error as NodeJS.ErrnoException).code}`);
  }
  const damaged = (problem: string) =>
    new UsageError(
      `${file} ${problem}: fix it by hand or delete it (it only remembers ${what} created from this machine)`,
    );
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw damaged('is not valid JSON');
  }
  const entries = isObject(parsed) ? parsed[key] : undefined;
  if (!Array.isArray(entries) || !entries.every(isEntry)) throw damaged(`is not a list of ${what}`);
  return entries;
}

/** Every named field is a string. */
export function hasStrings(value: unknown, fields: readonly string[]): value is Record<string, string> {
  if (!isObject(value)) return false;
  // A loop, not every(): called for each of thousands of entries on a TAB.
  for (const field of fields) if (typeof value[field] !== 'string') return false;
  return true;
}
