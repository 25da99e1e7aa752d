// Runs bin/aip.js on a real pseudo-terminal, through util-linux `script`, for what only a terminal
// shows: raw-mode prompts, keys such as Ctrl-C and Ctrl-D, streaming as a person sees it. stdout and
// stderr both land on the terminal, so the test reads one screen.

import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { patience } from './patience.js';
import { aipEnv, BIN } from './spawn.js';

export const hasScript = spawnSync('sh', ['-c', 'command -v script']).status === 0;

const ESCAPES = /\u001b\[[0-9;?]*[A-Za-z]|\r/g;

export interface Terminal {
  /** Everything written to the terminal so far, escapes and carriage returns removed. */
  screen(): string;
  /** Everything written to the terminal so far, as written. */
  raw(): string;
  /** Types: "\r" is Enter, "\u0003" Ctrl-C, "\u0004" Ctrl-D. */
  type(keys: string): void;
  /** Resolves once the screen (from `from` on) matches; fails with the screen after `ms`. */
  waitFor(pattern: RegExp | string, from?: number, ms?: number): Promise<void>;
  exited: Promise<number | null>;
  kill(): void;
  /** Sends a signal to aip itself (the process `script` runs), not to `script`. */
  signal(signal: NodeJS.Signals): void;
}

export function startTerminal(
  args: string[],
  env: Record<string, string>,
  options: { columns?: number } = {},
): Terminal {
  const quoted = [process.execPath, BIN, ...args].map((a) => `'${a.replaceAll("'", "'\\''")}'`).join(' ');
  // A fixed size: a pseudo-terminal made from a pipe has none, and readline wraps by the width.
  const columns = options.columns ?? 200;
  const child = spawn('script', ['-qec', `stty cols ${columns} rows 50; exec ${quoted}`, '/dev/null'], {
    env: aipEnv(env),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let raw = '';
  child.stdout.on('data', (d) => {
    raw += d;
  });
  child.stderr.on('data', (d) => {
    raw += d;
  });
  // A terminal session that hangs is ended, so that its test fails rather than the file.
  const killer = setTimeout(() => child.kill('SIGKILL'), patience(60_000));
  const exited = new Promise<number | null>((resolve) =>
    child.on('exit', (code) => {
      clearTimeout(killer);
      resolve(code);
    }),
  );
  const screen = () => raw.replace(ESCAPES, '');
  return {
    screen,
    raw: () => raw,
    type: (keys) => child.stdin.write(keys),
    async waitFor(pattern, from = 0, ms = patience(30_000)) {
      const deadline = Date.now() + ms;
      const matches = () => {
        const text = screen().slice(from);
        return typeof pattern === 'string' ? text.includes(pattern) : pattern.test(text);
      };
      while (!matches()) {
        if (Date.now() > deadline) throw new Error(`${pattern} not on the screen:\n${screen().slice(from)}`);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    },
    exited,
    kill: () => child.kill('SIGKILL'),
    signal(signal) {
      const pid = Number(
        execFileSync('pgrep', ['-P', String(child.pid)], { encoding: 'utf8' })
          .trim()
          .split('\n')[0],
      );
      process.kill(pid, signal);
    },
  };
}
