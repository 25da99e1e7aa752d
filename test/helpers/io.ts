// An IO over in-memory streams, with each stream's TTY flag chosen by the test.

import { EventEmitter } from 'node:events';
import { PassThrough } from 'node:stream';
import { IO, type OutStream } from '../../src/output/io.js';

export interface CapturedStream extends OutStream {
  text: string;
}

/** A terminal-like stream: what a tty.WriteStream offers ora, recorded as the escapes it would send. */
function capture(isTTY: boolean, columns = 120): CapturedStream {
  // An event emitter, as readline (prompts) listens on its output for 'resize'.
  const stream = Object.assign(new EventEmitter(), {
    text: '',
    isTTY,
    columns,
    write(chunk: string) {
      stream.text += chunk;
      return true;
    },
    cursorTo(x: number) {
      stream.text += `\u001b[${x + 1}G`;
      return true;
    },
    moveCursor(_dx: number, dy: number) {
      stream.text += dy < 0 ? `\u001b[${-dy}A` : '';
      return true;
    },
    clearLine() {
      stream.text += '\u001b[2K';
      return true;
    },
  });
  return stream;
}

export interface FakeIOOptions {
  env?: Record<string, string | undefined>;
  stdoutTTY?: boolean;
  stderrTTY?: boolean;
  stdinTTY?: boolean;
  /** Text on stdin, then end of input. */
  stdin?: string;
  /** Terminal width of stdout and stderr (default 120). */
  columns?: number;
}

export interface FakeStdin extends PassThrough {
  isTTY?: boolean;
  isRaw?: boolean;
  setRawMode?: (mode: boolean) => FakeStdin;
}

export function fakeIO(options: FakeIOOptions = {}) {
  const stdout = capture(options.stdoutTTY ?? false, options.columns);
  const stderr = capture(options.stderrTTY ?? false, options.columns);
  const stdin: FakeStdin = new PassThrough();
  stdin.isTTY = options.stdinTTY ?? false;
  if (stdin.isTTY) {
    stdin.isRaw = false;
    stdin.setRawMode = (mode: boolean) => {
      stdin.isRaw = mode;
      return stdin;
    };
  }
  if (options.stdin !== undefined) stdin.end(options.stdin);
  else if (!stdin.isTTY) stdin.end();
  const io = new IO({ stdout, stderr, stdin }, options.env ?? {});
  return { io, stdout, stderr, stdin };
}
