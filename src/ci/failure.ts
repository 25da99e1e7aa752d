// A command's failure, on CI, as one annotation on the run: `::error title=aip jobs wait::<the error
// line>`, the detail lines under it in the same annotation (the runner shows the message's escaped
// line breaks as lines). The error is printed on stderr as everywhere (errors/report.ts); this is
// the same text where a pull request shows it.

import type { Command } from 'commander';
import { type CiHost, githubActions } from './github.js';

export interface Failure {
  line: string;
  details: readonly string[];
}

export function annotateFailure(host: CiHost, failure: Failure | undefined, command: string): void {
  if (!failure) return;
  githubActions(host)?.error([failure.line, ...failure.details].join('\n'), command);
}

/**
 * "aip jobs wait": the commands the words of `argv` name, down the tree. Read from the words rather
 * than from the command that ran, as a usage error stops commander before any runs; the value of an
 * option that takes one is passed over (`--profile jobs models list` is "aip models list").
 */
export function commandPath(program: Command, argv: readonly string[]): string {
  const names = [program.name()];
  let command = program;
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i]!;
    if (word === '--') break;
    if (word.startsWith('-')) {
      if (!word.includes('=') && takesValue(command, word)) i++;
      continue;
    }
    const next = command.commands.find((c) => c.name() === word || c.aliases().includes(word));
    if (!next) continue;
    names.push(next.name());
    command = next;
  }
  return names.join(' ');
}

/** Whether `flag` is an option of the command or of one above it (the global ones) that takes a value. */
function takesValue(command: Command, flag: string): boolean {
  for (let c: Command | null = command; c; c = c.parent) {
    const option = c.options.find((o) => o.long === flag || o.short === flag);
    if (option) return option.required || option.optional;
  }
  return false;
}
