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

/**
 * The script that runs this aip as a command, for the processes aip starts of itself (a detached
 * emulator): the GitHub Action's bundle has its own (action/aip-cli.js, beside the one file it is
 * bundled into), as the checkout it sits in has bin/aip.js but no dist/ for it; the package's is
 * bin/aip.js.
 */
export function aipScript(): string {
  const beside = join(dirname(fileURLToPath(import.meta.url)), 'aip-cli.js');
  return existsSync(beside) ? beside : join(packageRoot(), 'bin', 'aip.js');
}
