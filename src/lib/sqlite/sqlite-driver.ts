// The seam between the durable store (sqlite.ts) and a SQLite binding: the few calls the store makes
// (exec, prepare with run/all/get, close), which each binding implements, and transactions over them,
// implemented once here. Both bindings install from the npm registry alone, with no compiler
// and no install script, on every Node aip supports, and both are synchronous, as the store needs (a
// change is written before the answer that follows it is sent):
//
// - node:sqlite (node-driver.ts), built into Node 22.13+, 23.4+, 24 and 26: SQLite as Node ships it,
//   with the operating system's file locks. The default wherever Node has it without a flag.
// - node-sqlite3-wasm (wasm-driver.ts): SQLite compiled to WebAssembly, reading and writing the file
//   through node:fs. The one for Node 20 and 22 before 22.13.
//
// The same database file serves both (and the better-sqlite3 store of earlier versions): one SQLite
// file format, one schema. Which one is used: choose-sqlite.ts.

/** What a statement binds and a row holds; text comes back as strings, blobs as Uint8Array. */
export type SqlValue = string | number | bigint | null | Uint8Array;
export type SqlRow = Record<string, SqlValue>;

export interface SqliteStatement {
  run(...params: SqlValue[]): void;
  all(...params: SqlValue[]): SqlRow[];
  /** The first row, or undefined when there is none. */
  get(...params: SqlValue[]): SqlRow | undefined;
}

/** One open database, as a binding gives it. */
export interface SqliteConnection {
  exec(sql: string): void;
  prepare(sql: string): SqliteStatement;
  close(): void;
}

/** One open database as the store uses it: a connection with transactions (withTransactions). */
export interface SqliteDriver extends SqliteConnection {
  /**
   * Runs `work` as one transaction: all its writes are kept, or none (rolled back, and the error
   * thrown again, if it throws). A transaction inside another joins it.
   */
  transaction<T>(work: () => T): T;
  /** Called right after a transaction's BEGIN is sent (its first write): what is to go with it. */
  onBegin?: () => void;
}

export interface SqliteBinding {
  /** As users are told it: the emulator's start-up line names it. */
  readonly name: string;
  /**
   * Whether the operating system locks the database file while it is open (released however the
   * process ends). The WebAssembly build locks with a directory beside the file instead, which a killed
   * process leaves behind: there the owner file (owner-lock.ts) is the lock that counts.
   */
  readonly osLock: boolean;
  /**
   * Opens (creating) the database. Called only by the owner of the state directory (owner-lock.ts), so
   * a lock another process left beside the file is no longer anyone's and may be cleared. `readOnly`:
   * opened to look only (whose the database is, sqlite.ts): it writes nothing, and on close does not
   * checkpoint a WAL it finds.
   */
  open(file: string, options?: { readOnly?: boolean }): SqliteConnection;
}

/**
 * Transactions over a connection, one implementation for every binding. BEGIN is sent at the first
 * write inside the work, not before: the jobs store runs a batch per running job on every request, and
 * most write nothing, so an empty transaction must cost nothing (BEGIN and COMMIT cost 1 µs through
 * node:sqlite, 9 µs through the WebAssembly build; 2,000 queued jobs made that 18 ms a request).
 * Reads before the first write see what a transaction would: the database has this one connection.
 */
export function withTransactions(connection: SqliteConnection): SqliteDriver {
  let inside = false;
  let begun = false;
  const beforeWrite = () => {
    if (!inside || begun) return;
    connection.exec('BEGIN');
    begun = true;
    driver.onBegin?.();
  };
  const driver: SqliteDriver = {
    exec(sql) {
      beforeWrite();
      connection.exec(sql);
    },
    prepare(sql) {
      const statement = connection.prepare(sql);
      return {
        run(...params) {
          beforeWrite();
          statement.run(...params);
        },
        all: (...params) => statement.all(...params),
        get: (...params) => statement.get(...params),
      };
    },
    transaction(work) {
      if (inside) return work();
      inside = true;
      try {
        const result = work();
        if (begun) connection.exec('COMMIT');
        return result;
      } catch (error) {
        try {
          if (begun) connection.exec('ROLLBACK');
        } catch {
          // SQLite rolled it back itself (a full disk, an I/O error): nothing left to undo.
        }
        throw error;
      } finally {
        inside = false;
        begun = false;
      }
    },
    close: () => connection.close(),
  };
  return driver;
}
