// The text of GitHub Actions workflow commands (`::error file=a.jsonl,line=3::message`) and of file
// commands (`name<<delimiter` … `delimiter`), by the rules of @actions/core, copied rather than
// depended on (it is a whole toolkit for three functions):
// - actions/toolkit packages/core/src/command.ts: escapeData (% → %25, \r → %0D, \n → %0A) for the
//   message, escapeProperty (the same, then : → %3A and , → %2C) for property values; properties with
//   an empty value are left out; `::name k=v,k=v::message`.
// - packages/core/src/file-command.ts: prepareKeyValueMessage, `name<<ghadelimiter_<uuid>`, the value,
//   the delimiter, each on its own line; a name or value holding the delimiter is refused.
// The runner undoes the escapes (actions/runner src/Runner.Common/ActionCommand.cs, UnescapeData and
// UnescapeProperty) and reads the heredoc back (src/Runner.Worker/FileCommandManager.cs,
// EnvFileKeyValuePairs): test/ci/ parses both the same way.

import { randomUUID } from 'node:crypto';
import { EOL } from 'node:os';

export function escapeData(text: string): string {
  return text.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

export function escapeProperty(text: string): string {
  return escapeData(text).replace(/:/g, '%3A').replace(/,/g, '%2C');
}

export type CommandProperties = Record<string, string | number | undefined>;

/** One workflow command line (no line break): `::command k=v,…::message`. */
export function workflowCommand(command: string, properties: CommandProperties, message: string): string {
  const pairs = Object.entries(properties)
    .filter(([, value]) => value !== undefined && value !== '')
    .map(([key, value]) => `${key}=${escapeProperty(String(value))}`);
  return `::${command}${pairs.length > 0 ? ` ${pairs.join(',')}` : ''}::${escapeData(message)}`;
}

/**
 * One entry of $GITHUB_OUTPUT (or $GITHUB_ENV), multi-line safe, with its trailing line break. Throws
 * when the name or value holds the delimiter, as @actions/core does (a random UUID: only a value made
 * to break out could).
 */
export function keyValueEntry(name: string, value: string, uuid: string = randomUUID()): string {
  const delimiter = `ghadelimiter_${uuid}`;
  if (name.includes(delimiter)) {
    throw new Error(`Unexpected input: name should not contain the delimiter "${delimiter}"`);
  }
  if (value.includes(delimiter)) {
    throw new Error(`Unexpected input: value should not contain the delimiter "${delimiter}"`);
  }
  return `${name}<<${delimiter}${EOL}${value}${EOL}${delimiter}${EOL}`;
}
