// node:sqlite, Node's own SQLite (sqlite-driver.ts): present without a flag from Node 22.13 on the 22
// line, 23.4, 24 and 26. It locks the database file as SQLite does on every system (fcntl, LockFileEx),
// so a lock goes with its process however that ends.
//
// Node 22 prints "ExperimentalWarning: SQLite is an experimental feature…" when the module loads (24
// and 26 print nothing). aip chose it and knows it: that one warning is kept from stderr, by a filter
// on process.emitWarning for the moment the module loads; every other warning passes.

import type { DatabaseSync } from 'node:sqlite';
import type { SqliteBinding, SqliteConnection, SqlValue } from './sqlite-driver.js';

type NodeSqlite = typeof import('node:sqlite');

const SQLITE_WARNING = /^SQLite is an experimental feature/;

/** Loads a built-in module without Node's ExperimentalWarning about SQLite. */
export function withoutSqliteWarning<T>(load: () => T): T {
  const emitWarning = process.emitWarning;
  process.emitWarning = function (this: NodeJS.Process, warning: string | Error, ...rest: unknown[]) {
    const type = typeof rest[0] === 'string' ? rest[0] : (rest[0] as { type?: string } | undefined)?.type;
    const message = typeof warning === 'string' ? warning : warning.message;
    if (type === 'ExperimentalWarning' && SQLITE_WARNING.test(message)) return;
    return (emitWarning as (...args: unknown[]) => void).call(this, warning, ...rest);
  } as typeof process.emitWarning;
  try {
    return load();
  } finally {
    process.emitWarning = emitWarning;
  }
}

let loaded: NodeSqlite | null | undefined;

/** node:sqlite, when this Node has it without a flag (getBuiltinModule gives undefined otherwise). */
function nodeSqlite(): NodeSqlite | undefined {
  loaded ??=
    withoutSqliteWarning(() => process.getBuiltinModule?.('node:sqlite') as NodeSqlite | undefined) ?? null;
  return loaded ?? undefined;
}

function connectionTo(db: DatabaseSync): SqliteConnection {
  return {
    exec: (sql) => db.exec(sql),
    prepare(sql) {
      const statement = db.prepare(sql);
      return {
        run: (...params: SqlValue[]) => void statement.run(...params),
        all: (...params: SqlValue[]) => statement.all(...params),
        get: (...params: SqlValue[]) => statement.get(...params),
      };
    },
    // Finalizes its statements too.
    close: () => db.close(),
  };
}

/** The node:sqlite binding, or undefined where this Node has none. */
export function nodeSqliteBinding(): SqliteBinding | undefined {
  const sqlite = nodeSqlite();
  if (!sqlite) return undefined;
  return {
    name: 'node:sqlite',
    osLock: true,
    open: (file, options) =>
      connectionTo(new sqlite.DatabaseSync(file, { readOnly: options?.readOnly ?? false })),
  };
}
