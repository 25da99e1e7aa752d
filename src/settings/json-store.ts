// Every write of the config file goes through conf: it writes a temporary file and renames it over
// the old one (so a crash never leaves half a file) with mode 0600 (the file may hold a key).
// conf is loaded here, on first write, and never on the read path.

import { mkdirSync } from 'node:fs';
import { basename, dirname, extname } from 'node:path';
import { type ConfigData, readConfigFile } from './config-file.js';

/**
 * Reads the file, lets `mutate` change it, and writes it back, unless `mutate` returns false (nothing
 * to change: no file is created or rewritten). Resolves to whether it wrote.
 */
export async function updateConfig(file: string, mutate: (data: ConfigData) => unknown): Promise<boolean> {
  // Read (and so validate) first: a corrupt file is reported, never overwritten.
  const data = readConfigFile(file);
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
  store.store = data as unknown as Record<string, unknown>;
  return true;
}
