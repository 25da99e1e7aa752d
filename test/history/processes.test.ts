// The history store across processes, through the built aip (each `aip history` folds the journal):
// a fold killed with SIGKILL at any moment leaves a database that the next fold completes, nothing lost
// and nothing twice; folders running at once, while writers append, lose and duplicate nothing.

import { spawn } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { hostname } from 'node:os';
import { setTimeout as delay } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { journalHostTag } from '../../src/history/paths.js';
import { nodeSqliteBinding } from '../../src/history/sqlite.js';
import { historyDbFile, withHistoryStore } from '../../src/history/store.js';
import { patience } from '../helpers/patience.js';
import { aipEnv, BIN, collect, runAip } from '../helpers/spawn.js';
import { tempDir } from '../helpers/temp.js';
import { begin, DEAD_PID, end, journalDir, journalFile, journalNames, usage } from './journal-fixture.js';

const BINDINGS = ['wasm', ...(nodeSqliteBinding() ? ['node'] : [])];

type Env = { AIP_DATA_DIR: string; AIP_EMULATOR_SQLITE: string };

/** `files` finished journal files of `lines` usage events each; the tokens they hold in all. */
function journals(env: Env, files: number, lines: number): number {
  let tokens = 0;
  for (let f = 0; f < files; f++) {
    const file = journalFile(env, { pid: DEAD_PID, at: 1000 + f });
    const events = [begin(file.run)];
    for (let i = 0; i < lines; i++) {
      events.push(usage(file.run, i, { prompt_tokens: i }));
      tokens += i;
    }
    file.append(...events, end(file.run));
  }
  return tokens;
}

async function totals(env: Env) {
  return withHistoryStore(env, ({ db }) => ({
    invocations: Number(db.prepare('SELECT count(*) AS n FROM invocations').get()?.n),
    usage: Number(db.prepare('SELECT count(*) AS n FROM usage').get()?.n),
    tokens: Number(db.prepare('SELECT coalesce(sum(prompt_tokens), 0) AS n FROM usage').get()?.n),
    runs: Number(db.prepare('SELECT count(DISTINCT run) AS n FROM invocations').get()?.n),
  }));
}

function startFold(env: Env) {
  const child = spawn(process.execPath, [BIN, 'history', '--limit', '1', '--json'], {
    env: aipEnv(env),
    stdio: 'pipe',
  });
  return { child, done: collect(child, patience(120_000)) };
}

describe.each(BINDINGS)('the history across processes (%s)', (sqlite) => {
  it('a fold killed with SIGKILL mid-way is completed by the next, nothing twice', {
    timeout: patience(180_000),
  }, async () => {
    const env = { AIP_DATA_DIR: tempDir('aip-history-'), AIP_EMULATOR_SQLITE: sqlite };
    const tokens = journals(env, 30, 4000);
    const wal = `${historyDbFile(env)}-wal`;
    let killedMidway = 0;
    for (let attempt = 0; attempt < 3; attempt++) {
      const { child, done } = startFold(env);
      // Once it has committed something (its WAL has grown), at a moment of its own choosing.
      const until = Date.now() + patience(30_000);
      while (Date.now() < until && !(existsSync(wal) && statSync(wal).size > 0) && child.exitCode === null)
        await delay(5);
      await delay(Math.floor(Math.random() * 40));
      if (child.exitCode === null) {
        child.kill('SIGKILL');
        killedMidway++;
      }
      await done;
      if (journalNames(env).length === 0) break;
    }
    expect(killedMidway).toBeGreaterThan(0);
    const last = await runAip(['history', '--limit', '1', '--json'], { env });
    expect(last.stderr).toBe('');
    expect(last.code).toBe(0);
    expect(await totals(env)).toEqual({ invocations: 30, usage: 120_000, tokens, runs: 30 });
    expect(journalNames(env)).toEqual([]);
  });

  it('folders at once, while writers append, lose nothing and duplicate nothing', {
    timeout: patience(180_000),
  }, async () => {
    const env = { AIP_DATA_DIR: tempDir('aip-history-'), AIP_EMULATOR_SQLITE: sqlite };
    const finished = journals(env, 10, 1000);
    // Writers: processes appending to journal files of their own (as running commands do), a line at
    // a time, then exiting without an `end` (killed, as it were).
    const writer = `
      const { appendFileSync } = require('node:fs');
      const { join } = require('node:path');
      const [dir, tag, lines] = [process.argv[1], process.argv[2], Number(process.argv[3])];
      const file = join(dir, Date.now() + '-' + process.pid + '-' + tag + '-w' + process.pid + '.jsonl');
      const run = 'writer-' + process.pid;
      appendFileSync(file, JSON.stringify({ k: 'begin', v: 1, run, at: '2026-11-20T10:00:00Z', pid: process.pid,
        host: 'h', command: 'rollouts', argv: ['rollouts'], profile: 'default', training_url: '',
        inference_url: '', trace_url: '', cwd: '/', version: '1' }) + '\\n', { mode: 0o600 });
      let i = 0;
      const tick = () => {
        for (let j = 0; j < 50 && i < lines; j++, i++)
          appendFileSync(file, JSON.stringify({ k: 'usage', run, at: '2026-11-20T10:00:01Z', api: 'inference',
            model: 'm', purpose: 'sample', prompt_tokens: 1, completion_tokens: 1, samples: 1 }) + '\\n');
        if (i < lines) setTimeout(tick, 2);
      };
      tick();`;
    const running = [0, 1, 2].map(() => {
      const child = spawn(process.execPath, [
        '-e',
        writer,
        journalDir(env),
        journalHostTag(hostname()),
        '3000',
      ]);
      return collect(child, patience(120_000));
    });
    const folds = [];
    // Two at a time, three times over: each waits for the other's turn (store.ts), well within its
    // patience on a busy machine.
    for (let round = 0; round < 3; round++) {
      folds.push(startFold(env).done, startFold(env).done);
      await delay(200);
    }
    for (const fold of await Promise.all(folds)) {
      expect(fold.stderr).toBe('');
      expect(fold.code).toBe(0);
    }
    for (const written of await Promise.all(running)) expect(written).toMatchObject({ code: 0, stderr: '' });
    const last = await runAip(['history', '--limit', '1', '--json'], { env });
    expect(last.code).toBe(0);
    expect(await totals(env)).toEqual({
      invocations: 13,
      usage: 10_000 + 9000,
      tokens: finished + 9000,
      runs: 13,
    });
    expect(journalNames(env)).toEqual([]);
  });
});
