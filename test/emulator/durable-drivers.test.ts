// The SQLite bindings of the durable emulator (src/emulator/durable/): which one is used and said, that
// Node's ExperimentalWarning about node:sqlite never reaches stderr, that a directory one emulator has
// open is refused to a second whatever the bindings of the two, that a directory left by a killed
// emulator is taken over at once, and that a database made as the better-sqlite3 store of earlier
// versions made it opens with each binding. What every binding must keep (a restart, kill -9) is in
// durable.test.ts, run on each.

import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { DocKind } from '../../src/emulator/durable/persistence.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { withoutSqliteWarning } from '../../src/lib/sqlite/node-driver.js';
import { withTransactions } from '../../src/lib/sqlite/sqlite-driver.js';
import { patience } from '../helpers/patience.js';
import { freePort } from '../helpers/ports.js';
import {
  call,
  DRIVER_NAMES,
  DRIVERS,
  type Driver,
  hasNodeSqlite,
  kill9,
  MODEL,
  useDurable,
} from './durable-helpers.js';

const { stateDir, start, stop, emulatorProcess } = useDurable();
const REPO = fileURLToPath(new URL('../..', import.meta.url));
const DEFAULT: Driver = hasNodeSqlite ? 'node' : 'wasm';

/** Ends an emulator process as Ctrl-C would, once everything it wrote has been read. */
function interrupt(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    child.once('close', () => resolve());
    child.kill('SIGINT');
  });
}

describe('the SQLite binding', () => {
  it('is node:sqlite where this Node has it, else node-sqlite3-wasm; AIP_EMULATOR_SQLITE forces one', async () => {
    const chosen = await start(stateDir());
    expect(chosen.state.persistence.driver).toBe(DRIVER_NAMES[DEFAULT]);
    const wasm = await start(stateDir(), { sqlite: 'wasm' });
    expect(wasm.state.persistence.driver).toBe('node-sqlite3-wasm');
    if (hasNodeSqlite)
      expect((await start(stateDir(), { sqlite: 'node' })).state.persistence.driver).toBe('node:sqlite');
    else
      await expect(start(stateDir(), { sqlite: 'node' })).rejects.toThrow(
        /^AIP_EMULATOR_SQLITE=node: this Node \(v[\d.]+\) has no node:sqlite without a flag/,
      );
    await expect(start(stateDir(), { sqlite: 'sqlite3' })).rejects.toThrow(
      'AIP_EMULATOR_SQLITE must be node or wasm, not "sqlite3"',
    );
  });

  it.each(DRIVERS)(
    'is named in the start-up line of aip emulator, and nothing is warned on stderr (%s)',
    {
      timeout: patience(90_000),
    },
    async (driver) => {
      const { child, stderr } = await emulatorProcess(stateDir(), 0, driver === DEFAULT ? undefined : driver);
      await interrupt(child);
      const lines = stderr().trimEnd().split('\n');
      expect(lines.find((line) => line.startsWith('  state '))).toMatch(
        new RegExp(`\\(0 models, 0 jobs, 0 spans; SQLite through ${DRIVER_NAMES[driver]}\\)$`),
      );
      // The banner and nothing else: no ExperimentalWarning (Node 22 prints one as node:sqlite loads).
      expect(lines.filter((line) => !/^(aip emulator listening| {2}|Use it with)/.test(line))).toEqual([]);
    },
  );

  it("keeps Node's warning about SQLite from stderr while node:sqlite loads, and no other warning", () => {
    // process.emitWarning as Node's own code calls it, recorded instead of printed.
    const real = process.emitWarning;
    const warned: string[] = [];
    const recorder = ((warning: string, options: string | { type: string }) => {
      warned.push(`${typeof options === 'string' ? options : options.type}: ${warning}`);
    }) as typeof process.emitWarning;
    process.emitWarning = recorder;
    try {
      withoutSqliteWarning(() => {
        process.emitWarning(
          'SQLite is an experimental feature and might change at any time',
          'ExperimentalWarning',
        );
        process.emitWarning('SQLite is an experimental feature', { type: 'ExperimentalWarning' });
        process.emitWarning('VM Modules is an experimental feature', 'ExperimentalWarning');
        process.emitWarning('SQLite is an experimental feature', 'DeprecationWarning');
      });
      // Only while it loads.
      expect(process.emitWarning).toBe(recorder);
      process.emitWarning('SQLite is an experimental feature', 'ExperimentalWarning');
    } finally {
      process.emitWarning = real;
    }
    expect(warned).toEqual([
      'ExperimentalWarning: VM Modules is an experimental feature',
      'DeprecationWarning: SQLite is an experimental feature',
      'ExperimentalWarning: SQLite is an experimental feature',
    ]);
  });
});

describe('a transaction', () => {
  /** A connection that records what it is sent. */
  function recorded() {
    const sent: string[] = [];
    const db = withTransactions({
      exec: (sql) => void sent.push(sql),
      prepare: (sql) => ({ run: () => void sent.push(sql), all: () => [], get: () => undefined }),
      close: () => {},
    });
    return { sent, db, insert: db.prepare('INSERT') };
  }

  it('begins at its first write, so one that writes nothing sends nothing; one inside another joins it', () => {
    const { sent, db, insert } = recorded();
    expect(db.transaction(() => db.prepare('SELECT').all())).toEqual([]);
    expect(sent).toEqual([]);
    db.transaction(() => {
      insert.run();
      db.transaction(() => insert.run());
    });
    insert.run();
    expect(sent).toEqual(['BEGIN', 'INSERT', 'INSERT', 'COMMIT', 'INSERT']);
  });

  it('is rolled back when its work throws, and the error thrown again', () => {
    const { sent, db, insert } = recorded();
    expect(() =>
      db.transaction(() => {
        insert.run();
        throw new Error('disk full');
      }),
    ).toThrow('disk full');
    expect(() =>
      db.transaction(() => {
        throw new Error('before any write');
      }),
    ).toThrow('before any write');
    expect(sent).toEqual(['BEGIN', 'INSERT', 'ROLLBACK']);
  });
});

describe('a second emulator on a directory in use', () => {
  const pairs = DRIVERS.flatMap((holder) => DRIVERS.map((second) => [holder, second] as const));
  it.each(pairs)(
    'is refused at once, naming the pid (the first on %s, the second on %s); after a kill -9 of the first it starts',
    {
      timeout: patience(90_000),
    },
    async (holder, second) => {
      const dir = stateDir();
      const { child } = await emulatorProcess(dir, await freePort(), holder);
      await expect(start(dir, { sqlite: second })).rejects.toThrow(
        `the emulator state directory ${dir} is in use by another emulator (pid ${child.pid}@${hostname()}): stop it (aip emulator stop), or give this one another --state-dir`,
      );
      // Killed with the directory open, it leaves its owner record (and the WebAssembly build its lock
      // directory) behind: neither is anyone's any more.
      await kill9(child);
      const next = await start(dir, { sqlite: second });
      expect(readFileSync(join(dir, 'owner'), 'utf8').split('\n')[0]).toBe(`${process.pid}@${hostname()}`);
      await stop(next);
    },
  );
});

/** A process that has ended: its pid is no one's (until reused). */
function deadPid(): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['-e', '0']);
    child.once('exit', () => resolve(child.pid!));
  });
}

describe('an owner record left behind', () => {
  it.each(DRIVERS)(
    'of a process that is gone, of a pid now another process, of this very pid: taken over (%s)',
    async (driver) => {
      const dir = stateDir();
      await stop(await start(dir, { sqlite: driver }));
      const records = [
        `${await deadPid()}@${hostname()}\n`,
        `${process.pid}@${hostname()}\n`,
        'not a record',
      ];
      // Linux says when a process started: a live pid that started at another time is another process.
      if (process.platform === 'linux') records.push(`${process.ppid}@${hostname()}\nstarted 1\n`);
      for (const record of records) {
        writeFileSync(join(dir, 'owner'), record);
        await stop(await start(dir, { sqlite: driver }));
      }
    },
  );

  it.each(DRIVERS)(
    "of another machine: node:sqlite lets the file's lock decide, the WebAssembly build refuses (%s)",
    async (driver) => {
      const dir = stateDir();
      await stop(await start(dir, { sqlite: driver }));
      const record = '4242@elsewhere.invalid\n';
      writeFileSync(join(dir, 'owner'), record);
      if (driver === 'wasm') {
        await expect(start(dir, { sqlite: driver })).rejects.toThrow(
          `the emulator state directory ${dir} is in use by another emulator (pid 4242@elsewhere.invalid), on another machine: stop it there, or give this one another --state-dir (if none runs there any more, remove ${join(dir, 'owner')})`,
        );
        expect(readFileSync(join(dir, 'owner'), 'utf8')).toBe(record);
      } else await stop(await start(dir, { sqlite: driver }));
    },
  );

  it.skipIf(!hasNodeSqlite)(
    "of another machine, while the file's lock is held: refused, and the record put back (node)",
    { timeout: patience(90_000) },
    async () => {
      const dir = stateDir();
      await emulatorProcess(dir, await freePort(), 'node');
      // As if the emulator holding the file had written its record on another machine.
      const record = '4242@elsewhere.invalid\n';
      writeFileSync(join(dir, 'owner'), record);
      await expect(start(dir, { sqlite: 'node' })).rejects.toThrow(
        `the emulator state directory ${dir} is in use by another emulator (pid 4242@elsewhere.invalid), on another machine: stop it there`,
      );
      expect(readFileSync(join(dir, 'owner'), 'utf8')).toBe(record);
    },
  );
});

/**
 * Makes a state directory as the better-sqlite3 store did (WAL, exclusive locking, synchronous=NORMAL,
 * the docs table, its format record, `pid@host` in the owner file), with native SQLite where this Node
 * has it (node:sqlite; better-sqlite3 is native SQLite too), else the WebAssembly build: in a process
 * of its own, killed with -9 once written (its WAL not checkpointed, its owner record left) or closed
 * as the old store closed.
 */
function makeOldStateDir(dir: string, rows: unknown[], ending: 'kill' | 'close'): Promise<void> {
  const script = `
    const fs = require('node:fs'), os = require('node:os'), path = require('node:path');
    const [dir, binding, ending] = process.argv.slice(1);
    const rows = JSON.parse(fs.readFileSync(0, 'utf8'));
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    const file = path.join(dir, 'emulator.db');
    let db, run;
    if (binding === 'node') {
      db = new (require('node:sqlite').DatabaseSync)(file);
      run = (sql, ...params) => db.prepare(sql).run(...params);
    } else {
      db = new (require('node-sqlite3-wasm').Database)(file);
      run = (sql, ...params) => db.run(sql, params);
    }
    fs.chmodSync(file, 0o600);
    db.exec('PRAGMA locking_mode = EXCLUSIVE');
    db.exec('PRAGMA journal_mode = WAL');
    db.exec('PRAGMA synchronous = NORMAL');
    db.exec('BEGIN EXCLUSIVE; COMMIT;');
    db.exec('CREATE TABLE IF NOT EXISTS docs (kind TEXT NOT NULL, id TEXT NOT NULL, value TEXT NOT NULL, bytes BLOB, PRIMARY KEY (kind, id)) WITHOUT ROWID');
    run("INSERT INTO docs (kind, id, value) VALUES ('meta', 'format', ?)", JSON.stringify({ format: 'aip-emulator-state', version: 1, created_at: new Date().toISOString() }));
    fs.writeFileSync(path.join(dir, 'owner'), process.pid + '@' + os.hostname() + '\\n', { mode: 0o600 });
    for (const row of rows) run('INSERT OR REPLACE INTO docs (kind, id, value, bytes) VALUES (?, ?, ?, ?)', row.kind, row.id, row.value, row.bytes ? Buffer.from(row.bytes, 'base64') : null);
    if (ending === 'close') { db.close(); fs.rmSync(path.join(dir, 'owner')); }
    process.stdout.write('written\\n');
    if (ending === 'kill') setInterval(() => {}, 60_000);
  `;
  const child = spawn(process.execPath, ['-e', script, dir, DEFAULT, ending], {
    cwd: REPO,
    stdio: 'pipe',
  });
  // Node 22 warns as node:sqlite loads: what the maker says is shown only if it fails.
  let stderr = '';
  child.stderr.on('data', (data) => {
    stderr += data;
  });
  child.stdin.end(JSON.stringify(rows));
  return new Promise((resolve, reject) => {
    child.stdout.on('data', (data) => {
      if (String(data).includes('written') && ending === 'kill') void kill9(child).then(resolve);
    });
    child.once('exit', (code, signal) => {
      if (ending === 'close' && code === 0) resolve();
      else if (signal !== 'SIGKILL')
        reject(new Error(`the old store's maker exited ${code ?? signal}: ${stderr}`));
    });
  });
}

const KINDS: DocKind[] = ['meta', 'model', 'checkpoint', 'log', 'job', 'event', 'span-request', 'request'];

/** Every document an emulator holds but the format record, as rows of the docs table. */
function rowsOf(emu: RunningEmulator) {
  return KINDS.flatMap((kind) =>
    emu.state.persistence
      .list(kind)
      .filter((doc) => !(kind === 'meta' && doc.id === 'format'))
      .map((doc) => ({
        kind,
        id: doc.id,
        value: JSON.stringify(doc.value),
        bytes: doc.bytes ? Buffer.from(doc.bytes).toString('base64') : null,
      })),
  );
}

describe('a state directory of the better-sqlite3 store', () => {
  const cases = DRIVERS.flatMap((driver) =>
    (['kill', 'close'] as const).map((ending) => [driver, ending] as const),
  );
  it.each(cases)(
    'opens with %s, all there (its maker ended by %s)',
    { timeout: patience(90_000) },
    async (driver, ending) => {
      // What to write: the documents of an emulator that made a model and ran a job to its end.
      const scratch = await start(stateDir(), { sqlite: driver });
      const { body: model } = await call(scratch.origin, 'POST', '/training/v1/preview/models', MODEL);
      await call(scratch.origin, 'POST', `/_emulator/models/${model.id}/checkpoints`, { count: 2 });
      const state = (await call(scratch.origin, 'GET', '/_emulator/state')).body;
      const rows = rowsOf(scratch);
      await stop(scratch);

      const dir = stateDir();
      await makeOldStateDir(dir, rows, ending);
      const opened = await start(dir, { sqlite: driver });
      expect((await call(opened.origin, 'GET', '/_emulator/state')).body).toEqual(state);
      expect(opened.state.counts()).toMatchObject({ models: 1, checkpoints: 3 });
    },
  );
});
