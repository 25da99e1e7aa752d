import { EventEmitter } from 'node:events';
import { join } from 'node:path';
// Runs the CLI in-process through main(), with its own IO, environment and config directory. The
// environment is not inherited: nothing from the developer's shell (a WANDB_API_KEY, say) leaks in.
// `sleep` is recorded instead of waited, so retry delays are asserted without slowing the suite.

import type { Command } from 'commander';
import type { Transport } from '../../src/api/transport.js';
import { Context } from '../../src/context.js';
import { main } from '../../src/main.js';
import { buildProgram } from '../../src/program.js';
import { type FakeIOOptions, fakeIO } from './io.js';
import { tempDir } from './temp.js';

export interface RunOptions extends FakeIOOptions {
  /** Actually wait in sleep() instead of recording the delay. */
  realSleep?: boolean;
  /** Actually wait, but at most this many ms per sleep (polling loops without slowing the suite). */
  sleepCap?: number;
  /**
   * Waits in place of each sleep (its delay recorded all the same): for a test that must know when a
   * pause begins, or that lets nothing but Ctrl-C (the signal aborted) end one.
   */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
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

/** A new config directory (aip-test-*), removed after this test file. */
export function tempConfigDir(): string {
  return tempDir('aip-test-');
}

/**
 * A command line as argv words, as a shell would split it: on whitespace, with a '…' or "…" part kept
 * whole (the quotes removed; no escapes, no expansion). As a tag, each ${value} is taken as it is,
 * spaces and quotes included, in the word it stands in (an array: one word per item):
 *   words('jobs create rl --model agent --name "my model"')
 *   words`jobs create rl --model agent --file ${file} --interval=${seconds}`
 */
export function words(text: string | TemplateStringsArray, ...values: unknown[]): string[] {
  const out: string[] = [];
  let word: string | undefined;
  let quote: string | undefined;
  const end = () => {
    if (word !== undefined) out.push(word);
    word = undefined;
  };
  const literal = (part: string) => {
    for (const c of part) {
      if (quote) {
        if (c === quote) quote = undefined;
        else word += c;
      } else if (c === '"' || c === "'") {
        quote = c;
        word ??= '';
      } else if (/\s/.test(c)) end();
      else word = (word ?? '') + c;
    }
  };
  const parts = typeof text === 'string' ? [text] : text;
  parts.forEach((part, i) => {
    literal(part);
    if (i >= values.length) return;
    const value = values[i];
    if (Array.isArray(value)) {
      end();
      out.push(...value.map(String));
    } else word = (word ?? '') + String(value);
  });
  if (quote) throw new Error(`unclosed ${quote} in: ${parts.join('…')}`);
  end();
  return out;
}

/** main(argv) in-process; argv as an array or as one string (split by words()). */
export async function runCli(argv: string[] | string, options: RunOptions = {}): Promise<RunResult> {
  if (typeof argv === 'string') argv = words(argv);
  // AIP_KEYRING=off: a test never reaches the keychain of the machine it runs on (a developer's macOS
  // Keychain needs no D-Bus address to be found); test/commands/keychain.test.ts opts in, on a private bus.
  const configDir = options.env?.AIP_CONFIG_DIR ?? tempConfigDir();
  // The history (aip's data directory) goes beside the config, never into the home of the machine.
  const env = {
    AIP_CONFIG_DIR: configDir,
    AIP_DATA_DIR: join(configDir, 'data'),
    AIP_KEYRING: 'off',
    ...options.env,
  };
  const { io, stdout, stderr } = fakeIO({ ...options, env });
  const sleeps: number[] = [];
  const code = await main(argv, {
    env,
    io,
    transport: options.transport,
    random: () => 0.5,
    sleep: async (ms, signal) => {
      sleeps.push(ms);
      if (options.sleep) return options.sleep(ms, signal);
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

/** The command tree as main() builds it, for tests that walk it: nothing runs, nothing is sent. */
export function commandTree(): Command {
  return buildProgram(
    new Context({
      env: {},
      io: fakeIO().io,
      transport: async () => {
        throw new Error('the command tree sends nothing');
      },
      sleep: async () => undefined,
      random: Math.random,
      signals: process,
    }),
  );
}
