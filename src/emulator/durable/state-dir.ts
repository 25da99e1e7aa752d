// Where `aip emulator` keeps its state unless told otherwise: emulator/ in aip's data directory
// (fs/data-dir.ts).

import { join } from 'node:path';
import { aipDataDir } from '../../fs/data-dir.js';

type Env = Record<string, string | undefined>;

export function defaultStateDir(env: Env, platform: NodeJS.Platform = process.platform): string {
  return join(aipDataDir(env, platform), 'emulator');
}
