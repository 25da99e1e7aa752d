// --rubric FILE: what a judge scores by, read whole before anything is sampled. It goes with every
// judge request, so it is bounded (MAX_RUBRIC_BYTES), and it must be text: a binary file or an empty
// one is a mistake to say now, not a judge's confusion to discover after paying for the samples.

import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { UsageError } from '../errors/errors.js';
import { MAX_RUBRIC_BYTES } from './defaults.js';

export interface Rubric {
  text: string;
  /** Of its bytes: a groups file keeps it, so that --resume with another rubric is told apart. */
  sha256: string;
}

export function readRubric(path: string): Rubric {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new UsageError(
      `--rubric ${path}: ${code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'a directory, not a file' : `cannot be read (${code})`}`,
    );
  }
  if (bytes.length > MAX_RUBRIC_BYTES)
    throw new UsageError(
      `--rubric ${path}: ${bytes.length} bytes, more than the ${MAX_RUBRIC_BYTES} a rubric may have (it goes with every judge request)`,
    );
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new UsageError(`--rubric ${path}: not UTF-8 text`);
  }
  if (text.includes('\0')) throw new UsageError(`--rubric ${path}: not text (it holds NUL bytes)`);
  if (text.trim() === '') throw new UsageError(`--rubric ${path}: empty`);
  return { text: text.trim(), sha256: createHash('sha256').update(bytes).digest('hex') };
}
