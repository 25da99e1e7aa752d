// The Redactor of a command's redaction flags (traces serve: --redact, --drop, --redact-preset,
// defined with the command, src/commands/traces/serve.ts, where nothing of traces/ may load at
// start-up). Each value is checked and compiled here, before the command starts anything: a bad one is
// a one-line usage error (exit 2). docs/redaction.md is the user's account of them.

import { UsageError } from '../../errors/errors.js';
import { Redactor } from './apply.js';
import { parseDrop, parsePresetName, parseRedact, presetRules } from './rules.js';

/** The values of those flags, as commander collects them (each repeatable, in order). */
export interface RedactionOptions {
  redact?: readonly string[];
  drop?: readonly string[];
  redactPreset?: readonly string[];
}

/**
 * The Redactor of the flags' values (an empty one, isEmpty, when none was given); a UsageError that
 * names the flag and the value for the first bad one.
 */
export function redactorFromOptions(options: RedactionOptions): Redactor {
  const parsed = <T>(flag: string, values: readonly string[] | undefined, parse: (value: string) => T): T[] =>
    (values ?? []).map((value) => {
      try {
        return parse(value);
      } catch (error) {
        if (error instanceof UsageError)
          throw new UsageError(`${flag} ${JSON.stringify(value)}: ${error.message}`);
        throw error;
      }
    });
  const presets = [...new Set(parsed('--redact-preset', options.redactPreset, parsePresetName))];
  return new Redactor([
    ...parsed('--drop', options.drop, parseDrop),
    ...parsed('--redact', options.redact, parseRedact),
    ...presets.flatMap((name) => presetRules(name)),
  ]);
}
