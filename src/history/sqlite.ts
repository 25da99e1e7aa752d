// The embedded store the history shares with the emulator (lib/sqlite/): its SQLite bindings
// (node:sqlite where Node has it, else the WebAssembly build), its transactions, and the owner file
// (fs/owner-lock.ts), taken before the database is opened so that two processes never have it open at
// once whatever the binding. Named here once for the rest of history/.

export { claimOwner, type Owner, type OwnerLock } from '../fs/owner-lock.js';
export { chooseSqliteBinding, SQLITE_CHOICE_ENV } from '../lib/sqlite/choose-sqlite.js';
export { nodeSqliteBinding } from '../lib/sqlite/node-driver.js';
export { claimForShortUse } from '../lib/sqlite/short-use.js';
export {
  type SqliteBinding,
  type SqliteDriver,
  type SqliteStatement,
  type SqlRow,
  type SqlValue,
  withTransactions,
} from '../lib/sqlite/sqlite-driver.js';
