// Which SQLite binding keeps a database (the emulator's state, the history; sqlite-driver.ts says
// what each is): node:sqlite where this Node has it without a flag, else the WebAssembly build.
// AIP_EMULATOR_SQLITE, hidden, forces one (`node`, `wasm`), so that the tests run both on one Node; an
// absolute path names a CommonJS module exporting another SqliteBinding, which is how
// bench/emulator.mjs measures better-sqlite3 (no dependency of aip's) against these two.

import { createRequire } from 'node:module';
import { isAbsolute } from 'node:path';
import { CliError } from '../../errors/errors.js';
import { nodeSqliteBinding } from './node-driver.js';
import type { SqliteBinding } from './sqlite-driver.js';
import { wasmSqliteBinding } from './wasm-driver.js';

export const SQLITE_CHOICE_ENV = 'AIP_EMULATOR_SQLITE';

/**
 * The binding to use: `choice` is AIP_EMULATOR_SQLITE's value. By default node:sqlite where this Node
 * has it, else the WebAssembly build; a binding asked for by name that this Node lacks is an error
 * rather than a silent other one.
 */
export function chooseSqliteBinding(choice: string | undefined): SqliteBinding {
  if (!choice) return nodeSqliteBinding() ?? wasmSqliteBinding();
  if (choice === 'wasm') return wasmSqliteBinding();
  if (choice === 'node') {
    const binding = nodeSqliteBinding();
    if (binding) return binding;
    throw new CliError(
      `${SQLITE_CHOICE_ENV}=node: this Node (${process.version}) has no node:sqlite without a flag (Node 22.13+, 23.4+, 24, 26 have it); unset it to use node-sqlite3-wasm`,
    );
  }
  if (isAbsolute(choice)) return createRequire(import.meta.url)(choice) as SqliteBinding;
  throw new CliError(`${SQLITE_CHOICE_ENV} must be node or wasm, not ${JSON.stringify(choice)}`);
}
