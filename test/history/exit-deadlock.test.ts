// Node 20's shutdown deadlock (nodejs/node#54918; src/lib/sqlite/exit-deadlock.ts): a command that
// has used the history through the WebAssembly SQLite ends with V8's optimizing compilers off, so that
// no background compile can wait on the main thread while it drains at exit. The hang itself is a race
// that no test can bring about at will; what is checked is that the process that could meet it has
// nothing left that could, and that the commands that cannot meet it keep their optimizing compilers.

import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { nodeSqliteBinding } from '../../src/history/sqlite.js';
import { aipEnv, BIN } from '../helpers/spawn.js';
import { tempDir } from '../helpers/temp.js';
import { begin, DEAD_PID, end, journalFile, usage } from './journal-fixture.js';

const PROBE = fileURLToPath(new URL('../helpers/log-optimizer.cjs', import.meta.url));

/** Whether V8 could still optimize when `aip <args>` exited, and how it exited. */
function optimizerAtExit(args: string[], env: Record<string, string>) {
  const r = spawnSync(process.execPath, ['--allow-natives-syntax', '--require', PROBE, BIN, ...args], {
    env: aipEnv(env),
    encoding: 'utf8',
  });
  const state = /^aip-test-optimizer (on|off)$/m.exec(r.stderr)?.[1];
  return { status: r.status, state, stderr: r.stderr };
}

function withHistory(sqlite: string): Record<string, string> {
  const env = { AIP_DATA_DIR: tempDir('aip-exit-'), AIP_EMULATOR_SQLITE: sqlite };
  const file = journalFile(env, { pid: DEAD_PID });
  file.append(begin(file.run), usage(file.run, 1), usage(file.run, 2), end(file.run));
  return env;
}

describe('the optimizing compilers at exit', () => {
  it.each(['usage --by model', 'usage --json', 'history --limit 5', 'history --json'])(
    'are off after aip %s over the WebAssembly SQLite',
    (args) => {
      const r = optimizerAtExit(args.split(' '), withHistory('wasm'));
      expect(r.status, r.stderr).toBe(0);
      expect(r.state).toBe('off');
    },
  );

  it.runIf(nodeSqliteBinding())('stay on over node:sqlite, which was never seen to hang', () => {
    const r = optimizerAtExit(['usage', '--by', 'model'], withHistory('node'));
    expect(r.status, r.stderr).toBe(0);
    expect(r.state).toBe('on');
  });

  it('stay on in a command that never opens the history', () => {
    const r = optimizerAtExit(['config', 'list'], withHistory('wasm'));
    expect(r.status, r.stderr).toBe(0);
    expect(r.state).toBe('on');
  });

  it('stay on where there is no history to read (nothing opened)', () => {
    const env = { AIP_DATA_DIR: tempDir('aip-exit-'), AIP_EMULATOR_SQLITE: 'wasm' };
    const r = optimizerAtExit(['usage'], env);
    expect(r.status, r.stderr).toBe(0);
    expect(r.state).toBe('on');
  });
});
