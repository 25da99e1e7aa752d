// The pager while it runs: aip's results go to its stdin, and it draws on the terminal itself. It
// quits when the user is done (q), which may be before aip is: from then on there is no reader, as
// with `aip … | head`. Ctrl-C reaches both; the pager keeps the terminal (less uses Ctrl-C itself),
// so aip stops feeding it, waits for it to quit, and then ends as interrupted (git does the same: a
// pager left on the terminal after its parent died would fight the shell for the keyboard).

import type { ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import type { OutStream } from './io.js';
import type { PagerCommand } from './pager.js';

const require = createRequire(import.meta.url);

export interface RunningPager {
  /** Where results go while the pager runs. */
  stream: OutStream;
  /** Resolves once the pager has read what was written (or has quit). */
  drained(): Promise<void>;
  /** Ends its input and resolves when it has quit; `interrupted` when Ctrl-C came meanwhile. */
  close(): Promise<{ interrupted: boolean }>;
}

export function startPager(
  command: PagerCommand,
  columns: number | undefined,
  onGone: () => void,
  onProblem: (message: string) => void,
): RunningPager {
  const { spawn } = require('node:child_process') as typeof import('node:child_process');
  const child: ChildProcess = spawn(command.file, command.args, {
    env: command.env,
    stdio: ['pipe', 'inherit', 'inherit'],
  });
  let interrupted = false;
  const onInterrupt = () => {
    interrupted = true;
    onGone();
    child.stdin?.end();
  };
  process.on('SIGINT', onInterrupt);
  // SIGTERM ends aip, as it would without a pager (unless the command handles it), and the pager
  // with it: left behind, it would keep the terminal from the shell.
  const onTerminate = () => {
    process.off('SIGTERM', onTerminate);
    child.kill('SIGTERM');
    if (process.listenerCount('SIGTERM') === 0) process.kill(process.pid, 'SIGTERM');
  };
  process.on('SIGTERM', onTerminate);
  const quit = new Promise<void>((resolve) => {
    const gone = () => {
      process.off('SIGINT', onInterrupt);
      process.off('SIGTERM', onTerminate);
      onGone();
      resolve();
    };
    child.once('close', gone);
    // It could not be started after all (found on PATH, but not runnable): said once, and ended.
    child.once('error', (error: NodeJS.ErrnoException) => {
      onProblem(`cannot run the pager "${command.text}": ${error.code ?? error.message}`);
      gone();
    });
  });
  // The pager quit before reading everything: no error, there is just no one left to read.
  child.stdin?.on('error', () => onGone());
  const stdin = child.stdin as NodeJS.WritableStream;
  // The pager reads only what it shows: what it has not read waits in this process, so a writer of
  // much output waits for it (drained) rather than hold all of it in memory.
  let full = false;
  return {
    stream: {
      write: (chunk: string) => {
        full = !stdin.write(chunk) || full;
        return !full;
      },
      isTTY: true,
      columns,
    },
    drained: () =>
      full
        ? new Promise<void>((resolve) => {
            const done = () => {
              full = false;
              stdin.off('drain', done);
              child.off('close', done);
              resolve();
            };
            stdin.once('drain', done);
            child.once('close', done);
          })
        : Promise.resolve(),
    async close() {
      child.stdin?.end();
      await quit;
      return { interrupted };
    },
  };
}
