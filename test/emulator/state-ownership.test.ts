// The emulator owns its state directory (issue 28): its database carries aip's mark (SQLite's
// application_id); anything else in its place (another application's database, one without tables, a
// symbolic link, a FIFO) is refused in one line naming it, and left byte for byte as it was; an earlier
// aip's database still opens, and is marked; what it makes is 0700/0600, and what is writable by others
// is warned about; a directory it cannot read is one line and exit 2, not "unexpected failure".

import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { APPLICATION_ID } from '../../src/emulator/durable/sqlite.js';
import { nodeSqliteBinding } from '../../src/lib/sqlite/node-driver.js';
import type { SqliteBinding } from '../../src/lib/sqlite/sqlite-driver.js';
import { wasmSqliteBinding } from '../../src/lib/sqlite/wasm-driver.js';
import { runAip } from '../helpers/spawn.js';
import { tempDir } from '../helpers/temp.js';
import { call, DRIVERS, type Driver, useDurable } from './durable-helpers.js';

const { root, start, stop, stateDir } = useDurable();

const BINDINGS: Record<Driver, () => SqliteBinding> = {
  node: () => nodeSqliteBinding()!,
  wasm: wasmSqliteBinding,
};

/** A database another application made: its SQL run by SQLite, the file closed. */
function foreignDatabase(file: string, sql: string): void {
  const db = wasmSqliteBinding().open(file);
  db.exec(sql);
  db.close();
}

/** Every file under `dir` (links not followed) with its bytes and mtime: what "left as it is" means. */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    const stats = lstatSync(path);
    out[name] = stats.isFile()
      ? `${stats.mtimeMs} ${stats.mode} ${readFileSync(path).toString('base64')}`
      : `${stats.isSymbolicLink() ? 'link' : 'other'} ${stats.mtimeMs}`;
  }
  return out;
}

function applicationIdOf(file: string): number {
  return readFileSync(file).readInt32BE(68);
}

const FOREIGN: Array<[string, string, RegExp]> = [
  [
    "another application's database",
    "CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT); INSERT INTO notes (text) VALUES ('mine');",
    /its tables: notes/,
  ],
  ['a SQLite database without tables', 'PRAGMA user_version = 7;', /without tables/],
  [
    'a database marked by another application',
    'PRAGMA application_id = 1234; CREATE TABLE t (x);',
    /another application's: its application id is 0x4d2/,
  ],
  [
    "a docs table that is not aip's",
    'CREATE TABLE docs (kind TEXT, id TEXT, value TEXT, bytes BLOB, owner TEXT);',
    /its tables: docs/,
  ],
  [
    "a docs table like aip's, without aip's format record",
    "CREATE TABLE docs (kind TEXT NOT NULL, id TEXT NOT NULL, value TEXT NOT NULL, bytes BLOB, PRIMARY KEY (kind, id)) WITHOUT ROWID; INSERT INTO docs VALUES ('note', '1', 'mine', NULL);",
    /its tables: docs/,
  ],
  [
    "another application's database in WAL mode",
    "PRAGMA journal_mode = WAL; CREATE TABLE notes (text TEXT); INSERT INTO notes VALUES ('mine');",
    /its tables: notes/,
  ],
];

describe.each(DRIVERS)('on %s', (driver) => {
  describe("a database that is not the emulator's", () => {
    it.each(FOREIGN)('%s is refused, naming the file, and left as it is', async (_, sql, why) => {
      const dir = stateDir();
      mkdirSync(dir, { mode: 0o700 });
      const file = join(dir, 'emulator.db');
      foreignDatabase(file, sql);
      const before = snapshot(dir);
      const error = await start(dir, { sqlite: driver }).then(
        () => undefined,
        (e: Error) => e,
      );
      expect(error?.message).toMatch(
        new RegExp(
          `^the emulator state directory ${dir} has a database that is not an emulator's \\(${file}: `,
        ),
      );
      expect(error?.message).toMatch(why);
      expect(error?.message).toMatch(/it is left as it is/);
      expect(error?.message).not.toContain('\n');
      expect(snapshot(dir)).toEqual(before);
    });

    it('a file that is not SQLite is refused and left as it is', async () => {
      const dir = stateDir();
      mkdirSync(dir, { mode: 0o700 });
      writeFileSync(join(dir, 'emulator.db'), 'x'.repeat(4096), { mode: 0o600 });
      const before = snapshot(dir);
      await expect(start(dir, { sqlite: driver })).rejects.toThrow(
        /cannot be opened .*file is not a database/,
      );
      expect(snapshot(dir)).toEqual(before);
    });
  });

  describe('symbolic links', () => {
    it("a state directory that is a link, to another application's directory or to an empty one, is refused", async () => {
      const victim = join(root, `victim-dir-${driver}`);
      mkdirSync(victim);
      foreignDatabase(join(victim, 'emulator.db'), 'CREATE TABLE notes (text TEXT);');
      const empty = join(root, `empty-dir-${driver}`);
      mkdirSync(empty);
      for (const target of [victim, empty]) {
        const before = snapshot(target);
        const link = stateDir();
        symlinkSync(target, link);
        await expect(start(link, { sqlite: driver })).rejects.toThrow(
          `the emulator state directory ${link} is a symbolic link (to ${target}): the emulator follows none, and it is left as it is`,
        );
        expect(snapshot(target)).toEqual(before);
      }
    });

    it.each([
      ['emulator.db', "another application's database"],
      ['emulator.db', 'a name that does not exist yet'],
      ['emulator.db-wal', 'a file of another application'],
      ['emulator.db-journal', 'a file of another application'],
      ['owner', 'a file of another application'],
    ])('%s as a link to %s is refused, and nothing written through it', async (name, what) => {
      const dir = stateDir();
      mkdirSync(dir, { mode: 0o700 });
      const target = join(root, `target-${driver}-${name}-${what.replaceAll(/\W/g, '-')}`);
      if (what.includes('database')) foreignDatabase(target, 'CREATE TABLE notes (text TEXT);');
      else if (what.includes('file')) writeFileSync(target, 'mine');
      const before = what.includes('not exist') ? undefined : readFileSync(target).toString('base64');
      const mtime = before === undefined ? undefined : statSync(target).mtimeMs;
      symlinkSync(target, join(dir, name));
      await expect(start(dir, { sqlite: driver })).rejects.toThrow(
        `the emulator state directory ${dir} holds ${name} as a symbolic link (to ${target})`,
      );
      if (before === undefined) expect(() => lstatSync(target)).toThrow(/ENOENT/);
      else {
        expect(readFileSync(target).toString('base64')).toBe(before);
        expect(statSync(target).mtimeMs).toBe(mtime);
      }
      expect(readdirSync(dir)).toEqual([name]);
    });

    it.skipIf(process.platform === 'win32')(
      'a FIFO in place of the database is refused, not waited on',
      async () => {
        const dir = stateDir();
        mkdirSync(dir, { mode: 0o700 });
        const made = spawnSync('mkfifo', [join(dir, 'emulator.db')]);
        if (made.status !== 0) return; // no mkfifo here: nothing to test
        await expect(start(dir, { sqlite: driver })).rejects.toThrow(
          /holds emulator\.db, which is not the file the emulator keeps there; it is left as it is/,
        );
      },
    );
  });

  describe("an earlier aip's database", () => {
    it('opens as it is, and is given the mark', async () => {
      const dir = stateDir();
      mkdirSync(dir, { mode: 0o700 });
      const file = join(dir, 'emulator.db');
      const db = BINDINGS[driver]().open(file);
      db.exec(
        'CREATE TABLE docs (kind TEXT NOT NULL, id TEXT NOT NULL, value TEXT NOT NULL, bytes BLOB, PRIMARY KEY (kind, id)) WITHOUT ROWID',
      );
      db.prepare("INSERT INTO docs (kind, id, value) VALUES ('meta', 'format', ?)").run(
        JSON.stringify({ format: 'aip-emulator-state', version: 1, created_at: '2025-01-01T00:00:00.000Z' }),
      );
      db.prepare("INSERT INTO docs (kind, id, value) VALUES ('model', 'm1', ?)").run(
        JSON.stringify({
          id: 'm1',
          entity: 'local',
          project: 'p',
          name: 'old',
          base_model: 'OpenPipe/Qwen3-14B-Instruct',
          run_id: 'r',
          created_at: '2025-01-01T00:00:00.000Z',
        }),
      );
      db.close();
      chmodSync(file, 0o600);
      expect(applicationIdOf(file)).toBe(0);
      const emu = await start(dir, { sqlite: driver });
      expect(emu.state.counts()).toMatchObject({ models: 1 });
      await stop(emu);
      expect(applicationIdOf(file)).toBe(APPLICATION_ID);
      // And opens again, as the emulator's own.
      expect((await start(dir, { sqlite: driver })).state.counts()).toMatchObject({ models: 1 });
    });
  });

  describe('permissions', () => {
    it.skipIf(process.platform === 'win32')(
      'makes the directory 0700 and the database 0600, whatever the umask',
      async () => {
        const dir = join(stateDir(), 'nested');
        const umask = process.umask(0);
        try {
          const emu = await start(dir, { sqlite: driver });
          expect(emu.state.persistence.notes).toEqual([]);
        } finally {
          process.umask(umask);
        }
        expect(statSync(dir).mode & 0o777).toBe(0o700);
        expect(statSync(join(dir, 'emulator.db')).mode & 0o777).toBe(0o600);
        expect(applicationIdOf(join(dir, 'emulator.db'))).toBe(APPLICATION_ID);
      },
    );

    it.skipIf(process.platform === 'win32')(
      'warns once of a directory and a database writable by others, and leaves their modes',
      async () => {
        const dir = stateDir();
        const first = await start(dir, { sqlite: driver });
        await call(first.origin, 'POST', '/training/v1/preview/models', {
          project: 'p',
          name: 'm',
          base_model: 'OpenPipe/Qwen3-14B-Instruct',
        });
        await stop(first);
        chmodSync(dir, 0o777);
        chmodSync(join(dir, 'emulator.db'), 0o666);
        const emu = await start(dir, { sqlite: driver });
        expect(emu.state.persistence.notes).toEqual([
          `${dir} is writable by others (mode 0777): anyone who can write it can change or replace the emulator's state; the emulator makes it 0700 (chmod 700 ${dir})`,
          `${join(dir, 'emulator.db')} is writable by others (mode 0666): anyone who can write it can change or replace the emulator's state; the emulator makes it 0600 (chmod 600 ${join(dir, 'emulator.db')})`,
        ]);
        expect(statSync(dir).mode & 0o777).toBe(0o777);
        expect(emu.state.counts()).toMatchObject({ models: 1 });
      },
    );
  });
});

describe('a state directory the emulator cannot read', () => {
  it.skipIf(process.platform === 'win32')(
    'is one line naming it and the cause, exit 2 (as root: run as nobody)',
    async () => {
      const base = tempDir('aip-test-unreadable-');
      chmodSync(base, 0o755);
      const dir = join(base, 'state');
      mkdirSync(dir, { mode: 0o700 });
      writeFileSync(join(dir, 'emulator.db'), '');
      const config = join(base, 'config');
      mkdirSync(config, { mode: 0o777 });
      chmodSync(config, 0o777);
      const asRoot = process.getuid?.() === 0;
      if (!asRoot) chmodSync(dir, 0o000);
      try {
        const r = await runAip(['emulator', '--port', '0', '--state-dir', dir], {
          env: { AIP_CONFIG_DIR: config, HOME: base },
          ...(asRoot ? { user: { uid: 65534, gid: 65534 } } : {}),
        });
        expect(r.stderr).not.toMatch(/unexpected failure/);
        expect(r.stderr).toMatch(
          new RegExp(
            `^error: the emulator state directory ${dir} cannot be used: permission denied \\(EACCES\\)`,
          ),
        );
        expect(r.stderr.trim().split('\n')).toHaveLength(1);
        expect(r.code).toBe(2);
      } finally {
        chmodSync(dir, 0o700);
      }
    },
  );
});
