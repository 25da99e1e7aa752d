import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The directory holding package.json and bin/aip.js, found from wherever this code was bundled to. */
export function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (existsSync(join(dir, 'package.json')) && existsSync(join(dir, 'bin', 'aip.js'))) return dir;
    const parent = dirname(dir);
    if (parent === dir) throw new Error('cannot find the aip package directory');
    dir = parent;
  }
}
