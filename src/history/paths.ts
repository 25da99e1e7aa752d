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
 * The host part of a journal file's name: the first 8 hex digits of sha256(hostname), so that whether
 * a file's process is still running is asked only on the machine it ran on (a shared home directory).
 */
export function journalHostTag(host: string): string {
  const crypto = process.getBuiltinModule('node:crypto') as typeof import('node:crypto');
  return crypto.createHash('sha256').update(host).digest('hex').slice(0, 8);
}
