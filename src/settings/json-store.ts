// Every file aip writes (the config, the registries of models and jobs this machine created) goes
// through conf: it writes a temporary file and renames it over the old one, so a crash never leaves
// half a file, with mode 0600 (the config may hold a key). A lock file around read → change → write
// keeps concurrent aip processes from losing each other's changes. conf is loaded here, on first
// write, and never on the read path.

import { closeSync, mkdirSync, openSync, rmSync, statSync } from 'node:fs';
import { basename, dirname, extname } from 'node:path';
import { CliError, UsageError } from '../errors.js';
import { type ConfigData, readConfigFile } from './config-file.js';

const LOCK_WAIT_MS = 10_000;
/** A lock older than this was left by a process that died; it is taken over. */
const STALE_LOCK_MS = 30_000;

async function withLock<T>(file: string, work: () => Promise<T>): Promise<T> {
  const lock = `${file}.lock`;
  const deadline = Date.now() + LOCK_WAIT_MS;
  for (let wait = 5; ; wait = Math.min(wait * 2, 100)) {
    try {
      closeSync(openSync(lock, 'wx', 0o600));
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      try {
        if (Date.now() - statSync(lock).mtimeMs > STALE_LOCK_MS) rmSync(lock, { force: true });
      } catch {
        // gone in the meantime: try again
      }
      if (Date.now() > deadline)
        throw new CliError(`${file} is locked by another aip process (${lock}); try again`);
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
  }
  try {
    return await work();
  } finally {
    rmSync(lock, { force: true });
  }
}

/**
 * Reads the file with `read` (which validates it: a corrupt file is reported, never overwritten), lets
 * `mutate` change the data, and writes it back, unless `mutate` returns false (nothing to change: no
 * file is created or rewritten). Resolves to whether it wrote.
 */
export async function updateJsonFile<T extends object>(
  file: string,
  read: (file: string) => T,
  mutate: (data: T) => unknown,
): Promise<boolean> {
  const dir = dirname(file);
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    return await withLock(file, () => writeUnderLock(file, dir, read, mutate));
  } catch (error) {
    // A directory that cannot be made or written (a file in the way, a read-only disk): said in
    // one line; the old file, if any, is as it was (conf writes a temporary file and renames it).
    const code = (error as NodeJS.ErrnoException).code;
    if (error instanceof CliError || !code) throw error;
    throw new UsageError(
      `cannot write ${file}: ${code} (${(error as Error).message.replace(/^\w+: /, '').split(',')[0]})`,
    );
  }
}

async function writeUnderLock<T extends object>(
  file: string,
  dir: string,
  read: (file: string) => T,
  mutate: (data: T) => unknown,
): Promise<boolean> {
  const data = read(file);
  if (mutate(data) === false) return false;
  const { default: Conf } = await import('conf');
  const store = new Conf<Record<string, unknown>>({
    cwd: dir,
    configName: basename(file, extname(file)),
    projectName: 'aip',
    projectSuffix: '',
    configFileMode: 0o600,
    accessPropertiesByDotNotation: false,
    clearInvalidConfig: false,
  });
  store.store = data as Record<string, unknown>;
  return true;
}

export function updateConfig(file: string, mutate: (data: ConfigData) => unknown): Promise<boolean> {
  return updateJsonFile(file, readConfigFile, mutate);
}
