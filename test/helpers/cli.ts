import { EventEmitter } from 'node:events';
// Runs the CLI in-process through main(), with its own IO, environment and config directory. The
// environment is not inherited: nothing from the developer's shell (a WANDB_API_KEY, say) leaks in.
// `sleep` is recorded instead of waited, so retry delays are asserted without slowing the suite.

import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Transport } from '../../src/api/transport.js';
import { main } from '../../src/main.js';
import { type FakeIOOptions, fakeIO } from './io.js';

export interface RunOptions extends FakeIOOptions {
  /** Actually wait in sleep() instead of recording the delay. */
  realSleep?: boolean;
  /** Actually wait, but at most this many ms per sleep (polling loops without slowing the suite). */
  sleepCap?: number;
  /** Stands in for the process's signals: emit 'SIGINT' on it to press Ctrl-C. */
  signals?: NodeJS.EventEmitter;
  transport?: Transport;
}

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
  /** Every delay the CLI asked to sleep for, in ms. */
  sleeps: number[];
}

export function tempConfigDir(): string {
  return mkdtempSync(join(tmpdir(), 'aip-test-'));
}

export async function runCli(argv: string[], options: RunOptions = {}): Promise<RunResult> {
  const env = { AIP_CONFIG_DIR: options.env?.AIP_CONFIG_DIR ?? tempConfigDir(), ...options.env };
  const { io, stdout, stderr } = fakeIO({ ...options, env });
  const sleeps: number[] = [];
  const code = await main(argv, {
    env,
    io,
    transport: options.transport,
    random: () => 0.5,
    sleep: async (ms, signal) => {
      sleeps.push(ms);
      const wait = options.realSleep
        ? ms
        : options.sleepCap !== undefined
          ? Math.min(ms, options.sleepCap)
          : 0;
      if (wait > 0 && !signal?.aborted) {
        // As main()'s own sleep: the listener goes when the wait ends, so long polls do not pile them up.
        await new Promise<void>((resolve) => {
          const done = () => {
            clearTimeout(timer);
            signal?.removeEventListener('abort', done);
            resolve();
          };
          const timer = setTimeout(done, wait);
          signal?.addEventListener('abort', done, { once: true });
        });
      }
    },
    signals: options.signals ?? new EventEmitter(),
  });
  return { code, stdout: stdout.text, stderr: stderr.text, sleeps };
}
