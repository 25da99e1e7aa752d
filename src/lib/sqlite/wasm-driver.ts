// node-sqlite3-wasm: SQLite compiled to WebAssembly, its files read and written through node:fs
// (sqlite-driver.ts). A dependency of aip's, with no install script and nothing to compile: it runs
// wherever Node does, and is what keeps the state where Node has no node:sqlite (20, 22 before 22.13).
//
// What its file layer does, and what the store (sqlite.ts) does about it:
// - Writes are fs.writeSync and syncs fs.fsyncSync, so a committed write is in the operating system
//   before the commit returns: a killed process loses nothing committed, as with native SQLite.
// - It has no shared memory, so WAL works only in exclusive locking mode, set before the first read
//   (otherwise journal_mode=WAL stays `delete`, and a database already in WAL mode cannot be opened):
//   the store sets it first, and checks that WAL took.
// - It locks by making a directory beside the database (`emulator.db.lock`), not with the operating
//   system's locks: a process killed with the database open leaves it there, and every later open
//   would be "database is locked". The owner file (owner-lock.ts) is the lock that counts; whoever
//   holds it clears a lock directory left behind, here, before opening.
// - Its objects live in WebAssembly memory, not the garbage collector's: statements are finalized and
//   the database closed explicitly.

import { rmdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Database, Statement } from 'node-sqlite3-wasm';
import type { SqliteBinding, SqliteConnection, SqlRow, SqlValue } from './sqlite-driver.js';

type WasmSqlite = { Database: new (file: string, options?: { readOnly?: boolean }) => Database };

export const WASM_BINDING_NAME = 'node-sqlite3-wasm';

let loaded: WasmSqlite | undefined;

function clearLeftLock(file: string): void {
  try {
    rmdirSync(`${file}.lock`);
  } catch {
    // none (the usual case), or not removable: the open says the database is locked
  }
}

function connectionTo(db: Database): SqliteConnection {
  const statements: Statement[] = [];
  return {
    exec: (sql) => db.exec(sql),
    prepare(sql) {
      let statement = db.prepare(sql);
      statements.push(statement);
      // A statement whose step failed (a full disk, an I/O error) cannot be bound again here (its
      // reset gives back that failure): it is made anew, so that the next use works when SQLite does.
      const guarded = <T>(work: () => T): T => {
        try {
          return work();
        } catch (error) {
          const failed = statement;
          statements.splice(statements.indexOf(failed), 1);
          try {
            failed.finalize();
          } catch {
            // its failure again: finalized all the same
          }
          statement = db.prepare(sql);
          statements.push(statement);
          throw error;
        }
      };
      return {
        run: (...params: SqlValue[]) => guarded(() => void statement.run(params)),
        all: (...params: SqlValue[]) => guarded(() => statement.all(params) as SqlRow[]),
        // Run to its end, as all() does: its own get() stops at the first row and leaves the statement
        // in progress, which holds a read lock and makes the next COMMIT fail. Its queries are single rows.
        get: (...params: SqlValue[]) => guarded(() => statement.all(params)[0] as SqlRow | undefined),
      };
    },
    close() {
      for (const statement of statements.splice(0)) if (!statement.isFinalized) statement.finalize();
      db.close();
    },
  };
}

export function wasmSqliteBinding(): SqliteBinding {
  // Loaded on first use (~35 ms, its WebAssembly compiled): --ephemeral never pays for it.
  loaded ??= createRequire(import.meta.url)('node-sqlite3-wasm') as WasmSqlite;
  const { Database: WasmDatabase } = loaded;
  return {
    name: WASM_BINDING_NAME,
    osLock: false,
    open(file, options) {
      clearLeftLock(file);
      return connectionTo(new WasmDatabase(file, { readOnly: options?.readOnly ?? false }));
    },
  };
}
