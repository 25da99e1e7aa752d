// A prompt for a secret on the terminal: raw mode, nothing echoed, Ctrl-C interrupts (exit 130).
// The answer is read from stdin and the prompt written to stderr, so stdout stays clean.

import { InterruptedError, UsageError } from '../errors/errors.js';
import type { IO } from './io.js';

export function promptSecret(io: IO, question: string): Promise<string> {
  const stdin = io.stdin;
  return new Promise((resolve, reject) => {
    let value = '';
    let inEscape = false;
    const restoreRaw = (stdin as { isRaw?: boolean }).isRaw === true;
    const finish = (error: Error | undefined) => {
      stdin.off('data', onData);
      stdin.off('end', onEnd);
      stdin.setRawMode?.(restoreRaw);
      stdin.pause();
      io.errWrite('\n');
      if (error) reject(error);
      else if (!value.trim()) reject(new UsageError('no key entered'));
      else resolve(value.trim());
    };
    const onData = (chunk: Buffer | string) => {
      for (const ch of String(chunk)) {
        if (inEscape) {
          // Arrow keys and the like arrive as ESC [ … letter; none of it belongs in a key.
          if (/[A-Za-z~]/.test(ch)) inEscape = false;
          continue;
        }
        if (ch === '\r' || ch === '\n' || ch === '\u0004') return finish(undefined);
        if (ch === '\u0003') return finish(new InterruptedError());
        if (ch === '\u001b') inEscape = true;
        else if (ch === '\u007f' || ch === '\b') value = [...value].slice(0, -1).join('');
        else if (ch === '\u0015') value = '';
        else if (ch >= ' ') value += ch;
      }
    };
    // The terminal went away (or stdin ended) before Enter: take what was typed, if anything.
    const onEnd = () => finish(undefined);
    // Raw mode first, then the question: a key typed (or pasted) as soon as the question shows must
    // never meet a terminal that still echoes.
    stdin.setRawMode?.(true);
    stdin.on('data', onData);
    stdin.once('end', onEnd);
    io.errWrite(question);
    stdin.resume();
  });
}

/** One line typed on the terminal (echoed), the question on stderr; Ctrl-C interrupts (exit 130). */
export async function promptLine(io: IO, question: string): Promise<string> {
  const { createInterface } = await import('node:readline');
  const rl = createInterface({ input: io.stdin, output: io.stderrStream, terminal: io.isStdinTTY });
  return new Promise((resolve, reject) => {
    let answered = false;
    rl.once('SIGINT', () => {
      answered = true;
      rl.close();
      io.errWrite('\n');
      reject(new InterruptedError());
    });
    rl.once('close', () => {
      if (!answered) reject(new InterruptedError('no answer: the input ended'));
    });
    rl.question(question, (answer) => {
      answered = true;
      rl.close();
      resolve(answer.trim());
    });
  });
}
