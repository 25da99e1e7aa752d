// A GitHub Actions runner, as far as aip meets one: the environment of a step (GITHUB_ACTIONS, the
// workspace, empty GITHUB_OUTPUT and GITHUB_STEP_SUMMARY files), and the runner's own reading of what a
// step wrote, written from its source (actions/runner) rather than from aip's:
// - workflow commands: src/Runner.Common/ActionCommand.cs, TryParseV2 and its unescaping;
// - the outputs file: src/Runner.Worker/FileCommandManager.cs, EnvFileKeyValuePairs.

import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DATA, decode, PROPERTY } from '../helpers/runner-commands.js';
import { tempDir } from '../helpers/temp.js';

export interface WorkflowCommand {
  command: string;
  properties: Record<string, string>;
  data: string;
  /** The line as written. */
  raw: string;
}

/** TryParseV2 on one line: "::" after leading space, the name, k=v properties, "::", the data. */
export function parseCommand(line: string): WorkflowCommand | undefined {
  const message = line.trimStart();
  if (!message.startsWith('::')) return undefined;
  const end = message.indexOf('::', 2);
  if (end < 0) return undefined;
  const info = message.slice(2, end);
  const space = info.indexOf(' ');
  const command = space < 0 ? info : info.slice(0, space);
  const properties: Record<string, string> = {};
  if (space > 0) {
    for (const pair of info
      .slice(space + 1)
      .trim()
      .split(',')
      .filter(Boolean)) {
      const eq = pair.indexOf('=');
      // Split(new[] { '=' }, 2, RemoveEmptyEntries): "k=" and "=v" give fewer than two parts.
      if (eq > 0 && eq < pair.length - 1)
        properties[pair.slice(0, eq)] = decode(pair.slice(eq + 1), PROPERTY);
    }
  }
  return { command, properties, data: decode(message.slice(end + 2), DATA), raw: line };
}

/**
 * The workflow commands among the lines of a stream, as the runner reads each line (.NET's ReadLine:
 * a line ends at \n, \r\n or a lone \r).
 */
export function workflowCommands(text: string): WorkflowCommand[] {
  return text
    .split(/\r\n|\r|\n/)
    .map(parseCommand)
    .filter((c): c is WorkflowCommand => c !== undefined);
}

/** EnvFileKeyValuePairs: NAME=VALUE lines, and NAME<<DELIMITER … DELIMITER (LF line ends, as on Linux). */
export function parseOutputs(text: string): Array<[string, string]> {
  const pairs: Array<[string, string]> = [];
  let index = 0;
  const readLine = (): { line: string; newline: boolean } | undefined => {
    if (index >= text.length) return undefined;
    const lf = text.indexOf('\n', index);
    const start = index;
    if (lf < 0) {
      index = text.length;
      return { line: text.slice(start), newline: false };
    }
    index = lf + 1;
    return { line: text.slice(start, lf), newline: true };
  };
  for (let read = readLine(); read; read = readLine()) {
    const { line } = read;
    if (line === '') continue;
    const equals = line.indexOf('=');
    const heredoc = line.indexOf('<<');
    if (equals >= 0 && (heredoc < 0 || equals < heredoc)) {
      pairs.push([line.slice(0, equals), line.slice(equals + 1)]);
    } else if (heredoc >= 0 && (equals < 0 || heredoc < equals)) {
      const name = line.slice(0, heredoc);
      const delimiter = line.slice(heredoc + 2);
      if (!name || !delimiter) throw new Error(`Invalid format '${line}'`);
      const start = index;
      let end = index;
      for (let value = readLine(); value?.line !== delimiter; value = readLine()) {
        if (!value) throw new Error(`Invalid value. Matching delimiter not found '${delimiter}'`);
        if (!value.newline) throw new Error('Invalid value. EOF marker missing new line.');
        end = index - 1;
      }
      pairs.push([name, end > start ? text.slice(start, end) : '']);
    } else {
      throw new Error(`Invalid format '${line}'`);
    }
  }
  return pairs;
}

export interface Runner {
  /** The step's environment (lay it over aip's). */
  env: Record<string, string>;
  /** The workspace: files made here are named relative to it. */
  workspace: string;
  outputFile: string;
  summaryFile: string;
}

/** A step's environment, with its outputs and summary files made empty, as the runner makes them. */
export function simulatedRunner(): Runner {
  const workspace = tempDir('aip-gha-workspace-');
  // As the runner keeps them: outside the workspace (in RUNNER_TEMP).
  const runnerTemp = tempDir('aip-gha-temp-');
  const outputFile = join(runnerTemp, 'set_output');
  const summaryFile = join(runnerTemp, 'step_summary');
  writeFileSync(outputFile, '');
  writeFileSync(summaryFile, '');
  return {
    workspace,
    outputFile,
    summaryFile,
    env: {
      GITHUB_ACTIONS: 'true',
      CI: 'true',
      GITHUB_WORKSPACE: workspace,
      GITHUB_OUTPUT: outputFile,
      GITHUB_STEP_SUMMARY: summaryFile,
    },
  };
}

/** The step's outputs as the runner reads them back, by name. */
export function stepOutputs(runner: Runner): Record<string, string> {
  return Object.fromEntries(parseOutputs(readFileSync(runner.outputFile, 'utf8')));
}

/** What the step appended to its summary. */
export function stepSummary(runner: Runner): string {
  return readFileSync(runner.summaryFile, 'utf8');
}
