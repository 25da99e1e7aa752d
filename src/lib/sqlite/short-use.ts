// A short use of a database kept beside the journal it is folded from (the history, the trace store):
// its binding, and its directory's owner file, taken before the database is opened so that two
// processes never have it open at once, whatever the binding. Such a use is near its process's end,
// where Node 20 can deadlock after driving the WebAssembly SQLite (exit-deadlock.ts).

import { claimOwnerWaiting, type OwnerLock } from '../../fs/owner-lock.js';
import { chooseSqliteBinding, SQLITE_CHOICE_ENV } from './choose-sqlite.js';
import { stopOptimizingCompiles } from './exit-deadlock.js';
import type { SqliteBinding } from './sqlite-driver.js';
import { WASM_BINDING_NAME } from './wasm-driver.js';

export async function claimForShortUse(
  dir: string,
  env: Record<string, string | undefined>,
  options: { waitMs: number; what: string },
): Promise<{ binding: SqliteBinding; lock: OwnerLock }> {
  const binding = chooseSqliteBinding(env[SQLITE_CHOICE_ENV]);
  if (binding.name === WASM_BINDING_NAME) stopOptimizingCompiles();
  const lock = await claimOwnerWaiting(dir, { osLock: binding.osLock, ...options });
  return { binding, lock };
}
