// Where the tee's traces live: traces/ in aip's data directory (fs/data-dir.ts, AIP_DATA_DIR moves it).
// journal/ holds what `aip traces serve --tee` appends (writer.ts), one file a writer, until a reader
// folds it into traces.db (fold.ts); `owner` is there only while a reader holds the store (store.ts).

import { join } from 'node:path';
import { aipDataDir } from '../../fs/data-dir.js';

type Env = Record<string, string | undefined>;

export function tracesDir(env: Env): string {
  return join(aipDataDir(env), 'traces');
}

export const TRACES_DB = 'traces.db';
export const JOURNAL_DIR = 'journal';

/** A journal file's name: `<epochMs>-<pid>-<hostTag>-<random>.otlp` (the host tag as the history's). */
export const JOURNAL_NAME = /^(\d+)-(\d+)-([0-9a-f]{8})-([0-9a-z]+)\.otlp$/;

export function journalDirOf(env: Env): string {
  return join(tracesDir(env), JOURNAL_DIR);
}
