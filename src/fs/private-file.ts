// A file made 0600 before anything is in it, if it is not there yet: a database that holds what users
// sent (the emulator's state, the history). SQLite gives its journal and WAL the database file's mode.

import { chmodSync, closeSync, openSync } from 'node:fs';

export function createPrivateFile(file: string): void {
  try {
    closeSync(openSync(file, 'wx', 0o600));
    // Whatever the umask made of it.
    chmodSync(file, 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
}
