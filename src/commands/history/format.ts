// How the history verbs show an invocation: its command line, how it ended.

import type { InvocationSummary } from '../../history/query.js';
import { shellWord } from '../../lib/shell-word.js';

export function commandLine(invocation: Pick<InvocationSummary, 'argv'>): string {
  return ['aip', ...invocation.argv.map(shellWord)].join(' ');
}

/** A command line on a terminal: at most this many characters. */
const SHOWN_COMMAND = 48;

export function shortened(text: string, tty: boolean): string {
  if (!tty || text.length <= SHOWN_COMMAND) return text;
  return `${text.slice(0, SHOWN_COMMAND - 1)}…`;
}

/** How it ended: its exit code, or whether it still runs or was killed before it could say. */
export function endText(invocation: Pick<InvocationSummary, 'exit' | 'ended_at'>): string {
  if (invocation.exit !== null) return String(invocation.exit);
  return invocation.ended_at === null ? 'running' : 'killed';
}
