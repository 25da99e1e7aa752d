// `aip __complete -- <words…>`: what the completion scripts (completion.run.ts) ask on every TAB, so
// that what is offered always matches the aip that is installed, and can come from the local state.
//
// The protocol. The words are those after `aip` on the command line, the last one the word being
// completed (empty after a space). The answer, on stdout:
//   - one candidate a line, those that start with the word being completed: `value` or
//     `value<TAB>description` (shells that show descriptions, zsh and fish, show it);
//   - then one directive line, always the last:
//       :values       offer the candidates above, and nothing else (none: nothing at all)
//       :files        no candidates: the shell completes file paths
//       :directories  no candidates: the shell completes directory paths
// A failure of any kind prints nothing at all and exits 0: a TAB never shows an error, and a script
// that reads no directive offers nothing.

import type { CommandUnknownOpts as Command, Option } from '@commander-js/extra-typings';
import type { Context } from '../../context.js';
import type { GlobalOptions } from '../../settings/global-options.js';
import { type ValueKind, valueKindOf } from '../value-kinds.js';
import { locate, type Target } from './position.js';
import { type Candidate, LocalValues } from './values.js';

type Directive = 'values' | 'files' | 'directories';

interface Answer {
  candidates: Candidate[];
  directive: Directive;
}

/** Any white space but a single space between words: what oneLine changes (tested first, as most need nothing). */
const UNEVEN_SPACE = /[^\S ]| {2}|^ | $/;
const oneLine = (text: string) => (UNEVEN_SPACE.test(text) ? text.replace(/\s+/g, ' ').trim() : text);

function flagCandidates(command: Command, current: string): Candidate[] {
  const help = command.createHelp();
  const options: Option[] = [...help.visibleOptions(command), ...help.visibleGlobalOptions(command)];
  // "-" offers short and long flags alike; "--" only the long ones.
  const flags = (o: Option) => (current.startsWith('--') ? [o.long] : [o.long, o.short]);
  return options.flatMap((o) =>
    flags(o)
      .filter((f): f is string => f !== undefined)
      .map((value) => ({ value, description: o.description })),
  );
}

function valuesOf(
  kind: ValueKind | undefined,
  choices: readonly string[] | undefined,
  local: LocalValues,
): Answer {
  if (choices) return { candidates: choices.map((value) => ({ value })), directive: 'values' };
  if (kind === 'file') return { candidates: [], directive: 'files' };
  if (kind === 'directory') return { candidates: [], directive: 'directories' };
  return { candidates: kind ? local.of(kind) : [], directive: 'values' };
}

function answer(target: Target, current: string, local: LocalValues): Answer {
  switch (target.kind) {
    case 'flag':
      return { candidates: flagCandidates(target.command, current), directive: 'values' };
    case 'option-value': {
      // The kind declared on the flag where it is defined (commands/value-kinds.ts).
      const { option } = target;
      return valuesOf(valueKindOf(option), option.argChoices, local);
    }
    case 'operand': {
      const { command, argument, given } = target;
      // Subcommands first; flags only after a "-" (above).
      const subcommands =
        given.length === 0
          ? command
              .createHelp()
              .visibleCommands(command)
              .map((c) => ({ value: c.name(), description: c.description() }))
          : [];
      if (!argument) return { candidates: subcommands, directive: 'values' };
      const values = valuesOf(valueKindOf(argument), argument.argChoices, local);
      // A variadic argument's values already given are not offered again.
      const fresh = values.candidates.filter((c) => !given.includes(c.value));
      return { candidates: [...subcommands, ...fresh], directive: values.directive };
    }
  }
}

/** The answer's lines, the candidates narrowed to those that start with the word being completed. */
export function completionLines(program: Command, words: readonly string[], env: Context['env']): string[] {
  const { target, current, globals } = locate(program, words);
  const local = new LocalValues(env, globals as GlobalOptions);
  const { candidates, directive } = answer(target, current, local);
  const prefix = target.kind === 'option-value' ? target.prefix : '';
  const seen = new Set<string>();
  const lines: string[] = [];
  for (const { value, description } of candidates) {
    // A value that would break the one-a-line answer (a model named by hand-editing the record) is left out.
    if (!value.startsWith(current) || seen.has(value) || /[\t\n\r]/.test(value)) continue;
    seen.add(value);
    const text = description ? oneLine(description) : '';
    lines.push(`${prefix}${value}${text ? `\t${text}` : ''}`);
  }
  return [...lines, `:${directive}`];
}

export async function runComplete(ctx: Context, program: Command, words: readonly string[]): Promise<void> {
  let lines: string[];
  try {
    lines = completionLines(program, words, ctx.env);
  } catch {
    return;
  }
  ctx.io.write(`${lines.join('\n')}\n`);
}
