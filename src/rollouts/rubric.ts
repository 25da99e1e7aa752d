// --rubric FILE: what a judge scores by, read whole before anything is sampled. It goes with every
// judge request, so it is bounded (MAX_RUBRIC_BYTES), and it must be text: a binary file or an empty
// one is a mistake to say now, not a judge's confusion to discover after paying for the samples.

import { createHash } from 'node:crypto';
import { UsageError } from '../errors/errors.js';
import { readBounded } from '../fs/read-bounded.js';
import { MAX_RUBRIC_BYTES } from './defaults.js';

export interface Rubric {
  text: string;
  /** Of its bytes: a groups file keeps it, so that --resume with another rubric is told apart. */
  sha256: string;
}

export function readRubric(path: string): Rubric {
  // Bounded before it is read: /dev/zero, a FIFO or a huge file is refused, not read into memory.
  const bytes = readBounded(path, MAX_RUBRIC_BYTES, `--rubric ${path}`);
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
