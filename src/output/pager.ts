// Long output on a terminal goes through a pager, as gh and git do: AIP_PAGER, else PAGER, else
// `less -FRX` (quit if it fits one screen, keep colours, leave the text on the screen). Never when
// stdout is not a terminal, in CI, or with --no-pager; "cat" or an empty value means no pager. The
// command is split into words and run without a shell, so a pager that is not installed is found
// out before any output is written to it (a shell would take the output and then say "not found").

import { createRequire } from 'node:module';
import { delimiter, join } from 'node:path';
import type { Env } from '../settings/global-options.js';

const { accessSync, constants, statSync } = createRequire(import.meta.url)(
  'node:fs',
) as typeof import('node:fs');

export interface PagerCommand {
  /** The program, resolved on PATH, and its arguments. */
  file: string;
  args: string[];
  /** What the pager runs with: LESS=FRX and LV=-c unless the user set them (git and gh do the same). */
  env: Record<string, string | undefined>;
  /** As the user wrote it, for messages. */
  text: string;
}

export type PagerChoice = { pager: PagerCommand } | { pager?: undefined; problem?: string };

export const DEFAULT_PAGER = 'less -FRX';

/** Words as a POSIX shell splits them, for quotes and backslashes; no expansions. */
export function splitWords(text: string): string[] {
  const words: string[] = [];
  let word = '';
  let inWord = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (ch === "'") {
      const end = text.indexOf("'", i + 1);
      if (end < 0) throw new Error('an unclosed single quote');
      word += text.slice(i + 1, end);
      i = end;
      inWord = true;
    } else if (ch === '"') {
      i++;
      for (; i < text.length && text[i] !== '"'; i++) {
        if (text[i] === '\\' && i + 1 < text.length && '"\\$`'.includes(text[i + 1]!)) i++;
        word += text[i];
      }
      if (i >= text.length) throw new Error('an unclosed double quote');
      inWord = true;
    } else if (ch === '\\' && i + 1 < text.length) {
      word += text[++i];
      inWord = true;
    } else if (/\s/.test(ch)) {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
    } else {
      word += ch;
      inWord = true;
    }
  }
  if (inWord) words.push(word);
  return words;
}

function isExecutableFile(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** The program's path: as given when it has a slash, else the first match on PATH. */
export function findProgram(name: string, env: Env): string | undefined {
  if (name.includes('/')) return isExecutableFile(name) ? name : undefined;
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, name);
    if (isExecutableFile(candidate)) return candidate;
  }
  return undefined;
}

/**
 * Which pager, if any, for output to this terminal. `problem` says why a pager the user asked for
 * cannot run (the output is then printed as it is, with that said once).
 */
export function choosePager(
  env: Env,
  when: { stdoutIsTTY: boolean; ci: boolean; noPager: boolean },
): PagerChoice {
  if (!when.stdoutIsTTY || when.ci || when.noPager) return {};
  const asked = env.AIP_PAGER ?? env.PAGER;
  const text = (asked ?? DEFAULT_PAGER).trim();
  let words: string[];
  try {
    words = splitWords(text);
  } catch (error) {
    return { problem: `cannot read the pager command "${text}": ${(error as Error).message}` };
  }
  if (words.length === 0 || words[0] === 'cat') return {};
  const file = findProgram(words[0]!, env);
  if (!file) {
    // No less on this machine and nothing asked for: printed as it is, as gh does, without a word.
    if (asked === undefined) return {};
    return {
      problem: `the pager "${words[0]}" is not installed (from ${env.AIP_PAGER !== undefined ? 'AIP_PAGER' : 'PAGER'})`,
    };
  }
  return {
    pager: {
      file,
      args: words.slice(1),
      env: { ...env, LESS: env.LESS ?? 'FRX', LV: env.LV ?? '-c' },
      text,
    },
  };
}
