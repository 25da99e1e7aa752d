// Where the gateway keeps its spool: under aip's data directory (AIP_DATA_DIR), beside the history.

import { join } from 'node:path';
import { aipDataDir } from '../../fs/data-dir.js';

export function spoolDir(env: Record<string, string | undefined>): string {
  return join(aipDataDir(env), 'traces', 'spool');
}
