// Every file aip writes (the config, the registries of models and jobs this machine created) goes
// through conf: it writes a temporary file and renames it over the old one, so a crash never leaves
// half a file, with mode 0600 (the config may hold a key). conf is loaded here, on first write, and
// never on the read path.

import { mkdirSync } from 'node:fs';
import { basename, dirname, extname } from 'node:path';
import { type ConfigData, readConfigFile } from './config-file.js';

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
  const data = read(file);
  if (mutate(data) === false) return false;
  const dir = dirname(file);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
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
