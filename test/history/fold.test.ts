// Folding the journal into the store (src/history/fold.ts): finished, unfinished, torn and killed
// files; resuming from the offset reached; bounds; the refusal of a newer format. On both SQLite
// bindings where this Node has both (node:sqlite from 22.13; the WebAssembly build everywhere).

import { existsSync, mkdirSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { claimOwner, nodeSqliteBinding } from '../../src/history/sqlite.js';
import { historyDbFile, withHistoryStore } from '../../src/history/store.js';
import { tempDir } from '../helpers/temp.js';
import { begin, DEAD_PID, end, journalFile, journalNames, usage } from './journal-fixture.js';

const BINDINGS = ['wasm', ...(nodeSqliteBinding() ? ['node'] : [])];

function envFor(sqlite: string) {
  return { AIP_DATA_DIR: tempDir('aip-history-'), AIP_EMULATOR_SQLITE: sqlite };
}

type Env = ReturnType<typeof envFor>;

async function counts(env: Env) {
  return withHistoryStore(env, ({ db }) => {
    const n = (table: string) => Number(db.prepare(`SELECT count(*) AS n FROM ${table}`).get()?.n);
    return {
      invocations: n('invocations'),
      usage: n('usage'),
      offsets: n('journal_offsets'),
      tokens: Number(db.prepare('SELECT coalesce(sum(prompt_tokens), 0) AS n FROM usage').get()?.n),
    };
  });
}

describe.each(BINDINGS)('the history store (%s)', (sqlite) => {
  it('makes nothing when there is nothing to read', async () => {
    const env = envFor(sqlite);
    expect(await counts(env)).toBeUndefined();
    expect(existsSync(historyDbFile(env))).toBe(false);
  });

  it('folds a finished file whole and deletes it; the database is 0600 in a 0700 directory', async () => {
    const env = envFor(sqlite);
    const file = journalFile(env);
    file.append(begin(file.run), usage(file.run, 1), usage(file.run, 2), end(file.run));
    expect(await counts(env)).toEqual({ invocations: 1, usage: 2, offsets: 0, tokens: 23 });
    expect(journalNames(env)).toEqual([]);
    expect(statSync(historyDbFile(env)).mode & 0o777).toBe(0o600);
    expect(statSync(join(historyDbFile(env), '..')).mode & 0o777).toBe(0o700);
    // Read again: nothing twice.
    expect(await counts(env)).toEqual({ invocations: 1, usage: 2, offsets: 0, tokens: 23 });
  });

  it('folds a running process’s file up to its last complete line, and on from there next time', async () => {
    const env = envFor(sqlite);
    const file = journalFile(env); // this process's: running
    file.append(begin(file.run), usage(file.run, 1));
    file.appendRaw('{"k":"usage","run":"'); // a line being written
    expect(await counts(env)).toEqual({ invocations: 1, usage: 1, offsets: 1, tokens: 11 });
    expect(journalNames(env)).toHaveLength(1);
    file.appendRaw(
      `${file.run}","at":"2026-11-20T10:01:00Z","api":"inference","model":"m","purpose":"chat","prompt_tokens":100,"completion_tokens":1,"samples":1}\n`,
    );
    file.append(usage(file.run, 3));
    expect(await counts(env)).toEqual({ invocations: 1, usage: 3, offsets: 1, tokens: 124 });
    file.append(end(file.run, 2, { error: 'failed' }));
    expect(await counts(env)).toEqual({ invocations: 1, usage: 3, offsets: 0, tokens: 124 });
    expect(journalNames(env)).toEqual([]);
  });

  it('folds a killed process’s file without its torn tail, and marks it ended', async () => {
    const env = envFor(sqlite);
    const file = journalFile(env, { pid: DEAD_PID });
    file.append(begin(file.run), usage(file.run, 1));
    file.appendRaw('{"k":"usage","run":"torn');
    expect(await counts(env)).toEqual({ invocations: 1, usage: 1, offsets: 0, tokens: 11 });
    expect(journalNames(env)).toEqual([]);
    const row = await withHistoryStore(env, ({ db }) =>
      db.prepare('SELECT exit, ended_at FROM invocations').get(),
    );
    expect(row?.exit).toBeNull();
    expect(row?.ended_at).toEqual(expect.any(String));
  });

  it('folds a line longer than a read (a 5 MB body), and clears the offsets of files no longer there', async () => {
    const env = envFor(sqlite);
    const file = journalFile(env, { pid: DEAD_PID });
    const big = 'x'.repeat(5 * 1024 * 1024);
    file.append(begin(file.run), {
      k: 'body',
      run: file.run,
      at: '2026-11-20T10:00:00Z',
      api: 'inference',
      model: 'm',
      purpose: 'chat',
      request: big,
      response: 'ok',
    } as never);
    file.append(usage(file.run, 1));
    file.appendRaw(`{"k":"body","run":"${file.run}","request":"${big}`); // torn, and longer than a read
    await withHistoryStore(
      env,
      ({ db }) =>
        db.prepare("INSERT INTO journal_offsets (file, offset) VALUES ('1-2-deadbeef-gone.jsonl', 10)").run(),
      { create: true },
    );
    const kept = await withHistoryStore(env, ({ db }) => ({
      bodies: db.prepare('SELECT length(request) AS n, response FROM bodies').all(),
      usage: Number(db.prepare('SELECT count(*) AS n FROM usage').get()?.n),
      offsets: Number(db.prepare('SELECT count(*) AS n FROM journal_offsets').get()?.n),
    }));
    expect(kept).toEqual({ bodies: [{ n: big.length + 2, response: '"ok"' }], usage: 1, offsets: 0 });
    expect(journalNames(env)).toEqual([]);
  });

  it('keeps another machine’s file until it has not changed for a day', async () => {
    const env = envFor(sqlite);
    const file = journalFile(env, { pid: DEAD_PID, host: 'elsewhere.example' });
    file.append(begin(file.run), usage(file.run, 1));
    expect(await counts(env)).toMatchObject({ invocations: 1, usage: 1, offsets: 1 });
    const old = new Date(Date.now() - 25 * 3600 * 1000);
    utimesSync(file.path, old, old);
    expect(await counts(env)).toMatchObject({ invocations: 1, usage: 1, offsets: 0 });
    expect(journalNames(env)).toEqual([]);
  });

  it('skips lines that are not events, kinds it does not know, and events of unknown runs', async () => {
    const env = envFor(sqlite);
    const file = journalFile(env, { pid: DEAD_PID });
    file.appendRaw('not json\n[1,2]\n{"k":"future","run":"x"}\n');
    file.append(begin(file.run), usage('another-run', 1), usage(file.run, 1, { prompt_tokens: -5 }));
    expect(await counts(env)).toEqual({ invocations: 1, usage: 1, offsets: 0, tokens: 0 });
  });

  it('keeps within its bounds: the oldest invocations, then the oldest bodies, go', async () => {
    const env = envFor(sqlite);
    for (let i = 0; i < 5; i++) {
      const file = journalFile(env, { pid: DEAD_PID, at: 1000 + i });
      const body = {
        k: 'body',
        run: file.run,
        at: '2026-11-20T10:00:00Z',
        api: 'inference',
        model: 'm',
        purpose: 'chat',
      };
      file.append(
        begin(file.run),
        usage(file.run, i),
        { ...body, request: 'x'.repeat(100), response: i } as never,
        end(file.run),
      );
    }
    const left = await withHistoryStore(
      env,
      ({ db }) => ({
        ids: db
          .prepare('SELECT id FROM invocations ORDER BY id')
          .all()
          .map((r) => Number(r.id)),
        usage: Number(db.prepare('SELECT count(*) AS n FROM usage').get()?.n),
        bodies: db
          .prepare('SELECT response FROM bodies ORDER BY rowid')
          .all()
          .map((r) => String(r.response)),
      }),
      { maxInvocations: 3, maxBodyBytes: 250 },
    );
    expect(left).toEqual({ ids: [3, 4, 5], usage: 3, bodies: ['3', '4'] });
  });

  it('refuses a database a newer aip wrote, and leaves it as it is', async () => {
    const env = envFor(sqlite);
    await withHistoryStore(env, ({ db }) => db.exec('PRAGMA user_version = 99'), { create: true });
    const before = statSync(historyDbFile(env)).mtimeMs;
    await expect(counts(env)).rejects.toThrow(/written by a newer aip \(format 99; this one reads 1\)/);
    expect(statSync(historyDbFile(env)).mtimeMs).toBe(before);
  });

  it('refuses a file that is not its database, and leaves it as it is', async () => {
    const env = envFor(sqlite);
    mkdirSync(join(historyDbFile(env), '..'), { recursive: true });
    writeFileSync(historyDbFile(env), 'not a database, but somebody’s notes');
    await expect(counts(env)).rejects.toThrow(/history\.db is not a SQLite database; it is left as it is/);
    expect(readFileSync(historyDbFile(env), 'utf8')).toBe('not a database, but somebody’s notes');
  });

  it('waits for another use of the history, and fails naming it when it lasts', async () => {
    const env = envFor(sqlite);
    const dir = join(historyDbFile(env), '..');
    mkdirSync(dir, { recursive: true });
    const claim = claimOwner(dir, { elsewhere: 'leave' });
    if (!('held' in claim)) throw new Error('not claimed');
    await expect(withHistoryStore(env, () => 1, { create: true, waitMs: 100 })).rejects.toThrow(
      /^the history .* is in use by another aip \(pid \d+@.*\); try again when it ends$/,
    );
    setTimeout(() => claim.held.release(), 100);
    expect(await withHistoryStore(env, () => 2, { create: true, waitMs: 5000 })).toBe(2);
  });
});
