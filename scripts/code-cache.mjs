// The build's last step: dist/code-cache/, V8's compiled code for the chunks start-up loads, made by
// running a few commands in a fresh Node (scripts/code-cache-train.cjs; bin/code-cache.js says how
// aip uses it).

import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export async function makeCodeCache(root, dist) {
  const configDir = mkdtempSync(join(tmpdir(), 'aip-code-cache-'));
  try {
    // No NODE_OPTIONS: V8 rejects a cache made under other flags than the run's.
    const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', TMPDIR: tmpdir() };
    const child = spawn(process.execPath, [join(root, 'scripts', 'code-cache-train.cjs'), dist, configDir], {
      env,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (text) => {
      stderr += text;
    });
    const code = await new Promise((resolve, reject) => {
      child.on('error', reject);
      child.on('close', resolve);
    });
    if (code !== 0) throw new Error(`making the code cache failed (exit ${code}):\n${stderr}`);
  } finally {
    rmSync(configDir, { recursive: true, force: true });
  }
}
