// Where the history lives: history/ in aip's data directory (fs/data-dir.ts). history.db is the store
// (store.ts); journal/ holds what running commands append (journal.ts) until it is folded into the
// store; settings.json says whether history is kept, and with bodies (switch.ts).

import { join } from 'node:path';
import { aipDataDir } from '../fs/data-dir.js';

type Env = Record<string, string | undefined>;

export function historyDir(env: Env): string {
  return join(aipDataDir(env), 'history');
}

export const HISTORY_DB = 'history.db';
export const JOURNAL_DIR = 'journal';
export const SWITCH_FILE = 'settings.json';

/**
 * The host part of a journal file's name: FNV-1a of the hostname, 8 hex digits, so that whether a
 * file's process is still running is asked only on the machine it ran on (a shared home directory).
 * Not a cryptographic hash: node:crypto would be the one module a command loads for its history
 * (7–12 ms of start-up, bench/history.mjs), and a collision only makes a finished file wait.
 */
export function journalHostTag(host: string): string {
  let hash = 0x811c9dc5;
  for (const byte of Buffer.from(host, 'utf8')) hash = Math.imul(hash ^ byte, 0x01000193) >>> 0;
  return hash.toString(16).padStart(8, '0');
}
