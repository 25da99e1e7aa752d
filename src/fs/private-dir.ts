// The directory aip owns: its config directory (AIP_CONFIG_DIR, $XDG_CONFIG_HOME/aip, ~/.config/aip),
// which holds the config (a key), the local records and the detached emulator's record (its control key)
// and log. It is made 0700; and when aip writes into it and finds it open to others (group or others
// may read, write or enter it), it is made 0700 again, as it would have been made. Only that
// directory, and only when it is this user's own and not shared: never a sticky directory (/tmp), the
// home directory or /, whatever AIP_CONFIG_DIR names; never the directory of a file the user named
// (a transcript, `traces generate -o`).

import { chmodSync, mkdirSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { resolve } from 'node:path';

/** Makes `dir` (and any missing parent) 0700, or an existing one 0700 again. Throws the file system's errors. */
export function ensurePrivateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const stat = statSync(dir);
  if ((stat.mode & 0o077) === 0) return;
  const uid = process.geteuid?.();
  if (uid === undefined || stat.uid !== uid || stat.mode & 0o1000) return;
  const path = resolve(dir);
  if (path === resolve(homedir()) || path === resolve('/')) return;
  try {
    chmodSync(dir, 0o700);
  } catch {
    // a read-only file system: the write that follows says so
  }
}
