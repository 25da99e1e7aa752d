// Where on the command tree a partly typed command line is, read the way commander will parse it: each
// command parses the words after its name up to its subcommand's (positional options), a subcommand is
// recognised only as the first operand, an option that takes a value takes the next word (or the part
// after "="), and after "--" every word is an operand. The global options are the root's, and are
// accepted after any command too.

import type { Argument, CommandUnknownOpts as Command, Option } from '@commander-js/extra-typings';

/** What the word being completed is. */
export type Target =
  /** A flag of `command` (the word starts with "-"). */
  | { kind: 'flag'; command: Command }
  /** The value of `option`, which `owner` defines; `prefix` is "--flag=" when typed in one word. */
  | { kind: 'option-value'; owner: Command; option: Option; prefix: string }
  /** A subcommand of `command`, when none was typed yet, or the value of its next argument. */
  | { kind: 'operand'; command: Command; argument: Argument | undefined; given: string[] };

export interface Position {
  target: Target;
  /** The word being completed, without the "--flag=" of an option's value. */
  current: string;
  /** The values given to the root's options (--profile, --base-url…), by attribute name. */
  globals: Record<string, string>;
}

const takesValue = (option: Option) => option.required || option.optional;

/** The option a flag names, on the command or the commands above it, with the command defining it. */
function findOption(command: Command, flag: string): { owner: Command; option: Option } | undefined {
  for (let c: Command | null = command; c; c = c.parent) {
    const option = c.options.find((o) => o.long === flag || o.short === flag);
    if (option) return { owner: c, option };
  }
  return undefined;
}

function findSubcommand(command: Command, name: string): Command | undefined {
  return command.commands.find((c) => c.name() === name || c.aliases().includes(name));
}

/** `words`: the words after `aip`, the last one the word being completed (possibly ""). */
export function locate(root: Command, words: readonly string[]): Position {
  const typed = words.slice(0, -1);
  const last = words.at(-1) ?? '';
  const globals: Record<string, string> = {};
  const given = (owner: Command, option: Option, value: string) => {
    if (owner === root) globals[option.attributeName()] = value;
  };
  let command = root;
  let operands: string[] = [];
  let afterDashes = false;
  for (let i = 0; i < typed.length; i++) {
    const word = typed[i]!;
    if (!afterDashes && word === '--') {
      afterDashes = true;
    } else if (!afterDashes && word.startsWith('-') && word !== '-') {
      const equals = word.startsWith('--') ? word.indexOf('=') : -1;
      const found = findOption(command, equals > 0 ? word.slice(0, equals) : word);
      if (!found || !takesValue(found.option)) continue;
      if (equals > 0) given(found.owner, found.option, word.slice(equals + 1));
      else if (i + 1 < typed.length) given(found.owner, found.option, typed[++i]!);
      // The word being completed is this option's value.
      else return { target: { kind: 'option-value', ...found, prefix: '' }, current: last, globals };
    } else {
      const subcommand = !afterDashes && operands.length === 0 ? findSubcommand(command, word) : undefined;
      if (subcommand) {
        command = subcommand;
        operands = [];
      } else operands.push(word);
    }
  }
  if (!afterDashes && last.startsWith('--') && last.includes('=')) {
    const equals = last.indexOf('=');
    const found = findOption(command, last.slice(0, equals));
    if (found && takesValue(found.option)) {
      const prefix = last.slice(0, equals + 1);
      return {
        target: { kind: 'option-value', ...found, prefix },
        current: last.slice(prefix.length),
        globals,
      };
    }
  }
  if (!afterDashes && last.startsWith('-'))
    return { target: { kind: 'flag', command }, current: last, globals };
  const args = command.registeredArguments;
  const next = args[operands.length] ?? (args.at(-1)?.variadic ? args.at(-1) : undefined);
  return { target: { kind: 'operand', command, argument: next, given: operands }, current: last, globals };
}
