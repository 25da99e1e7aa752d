// A command's part of the history: one journal file of its own (history/journal/), one line a
// HistoryEvent, each appended with a single write. Nothing else writes the file, so nothing waits on a
// lock and nothing interleaves; `aip history` folds the files into the store (store.ts). The file is
// opened at the first event, which comes with the first request: a command that never talks to the
// platform writes nothing.
//
// A write that fails (a read-only home, a full disk) turns the journal off for the rest of the command,
// with one warning: the history is never a reason for a command to fail.

import { closeSync, constants, openSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { ensurePrivateDir } from '../fs/private-dir.js';
import { writeAll } from '../fs/write-all.js';
import { redactSecrets } from '../output/secrets.js';
import type { HistoryEvent } from './events.js';
import { JOURNAL_DIR, journalHostTag } from './paths.js';

/** The names of the journal files this process opened: a fold in this process must not finish them. */
const ownFiles = new Set<string>();

/**
 * Whether this process writes the journal file of that name. A file of this process's pid that it did
 * not open was left by another process that had the same pid (a container's pid 1, run after run).
 */
export function isOwnJournal(name: string): boolean {
  return ownFiles.has(name);
}

export class Journal {
  private fd: number | undefined;
  private broken = false;
  /** The file's path, once opened. */
  file: string | undefined;

  constructor(
    private readonly historyDir: string,
    private readonly warn: (message: string) => void,
  ) {}

  /** Appends the event, every known key in it masked. */
  append(event: HistoryEvent): void {
    if (this.broken) return;
    try {
      this.fd ??= this.open();
      writeAll(this.fd, `${redactSecrets(JSON.stringify(event))}\n`);
    } catch (error) {
      this.broken = true;
      const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
      this.warn(
        `history: cannot write ${this.file ?? this.historyDir} (${code}); this command is not recorded`,
      );
    }
  }

  close(): void {
    if (this.fd === undefined) return;
    try {
      closeSync(this.fd);
    } catch {
      // nothing of ours is lost: every line was written whole before
    }
    this.fd = undefined;
  }

  private open(): number {
    const dir = join(this.historyDir, JOURNAL_DIR);
    const random = Math.floor(Math.random() * 0x1000000)
      .toString(16)
      .padStart(6, '0');
    const name = `${Date.now()}-${process.pid}-${journalHostTag(hostname())}-${random}.jsonl`;
    this.file = join(dir, name);
    ownFiles.add(name);
    // O_EXCL: a name taken (the same pid and millisecond, the same random) is never written into.
    const flags = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_APPEND;
    try {
      return openSync(this.file, flags, 0o600);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      // The first command to record: the directory is made (0700) then. Not made every time: a
      // mkdir and a stat were a tenth of what recording costs a command.
      ensurePrivateDir(dir);
      return openSync(this.file, flags, 0o600);
    }
  }
}
