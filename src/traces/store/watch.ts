// What `aip traces tail` waits on between folds: a change in the journal directory (fs.watch: the
// tee's writer appending, or a new file), or else the poll interval, since fs.watch is not reliable
// everywhere (network file systems, some containers) and may not start at all.

import { type FSWatcher, watch } from 'node:fs';
import { ensurePrivateDir } from '../../fs/private-dir.js';

export interface Waker {
  /** Resolves at the next change, after `pollMs` at most, or at once when `signal` aborts. */
  wait(signal: AbortSignal): Promise<void>;
  close(): void;
}

export function journalWaker(dir: string | undefined, pollMs: number): Waker {
  let changed = false;
  let wake: (() => void) | undefined;
  let watcher: FSWatcher | undefined;
  if (dir !== undefined) {
    try {
      ensurePrivateDir(dir);
      watcher = watch(dir, { persistent: false }, () => {
        changed = true;
        wake?.();
      });
      watcher.on('error', () => {
        watcher?.close();
        watcher = undefined;
      });
    } catch {
      watcher = undefined; // polling alone
    }
  }
  return {
    wait(signal) {
      if (changed || signal.aborted) {
        changed = false;
        return Promise.resolve();
      }
      return new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          signal.removeEventListener('abort', done);
          wake = undefined;
          changed = false;
          resolve();
        };
        const timer = setTimeout(done, pollMs);
        signal.addEventListener('abort', done, { once: true });
        wake = done;
      });
    },
    close() {
      watcher?.close();
      watcher = undefined;
    },
  };
}
