// aip on PATH for the rest of the job, as the composite action did: the first use of the action in a
// job writes an `aip` launcher (and `aip.cmd` for Windows' shells) into $RUNNER_TEMP/aip-bin and adds
// that directory to $GITHUB_PATH, so later `run:` steps can call aip themselves; a later use finds the
// same launcher and adds nothing. The launcher runs this checkout's bundle with the Node running the
// action (the runner's own node24), so it needs no setup-node either.

import { appendFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { EOL } from 'node:os';
import { join } from 'node:path';
import { writeFileAtomic } from '../fs/atomic-write.js';

export interface Launcher {
  /** $RUNNER_TEMP: the job's temporary directory, emptied by the runner after the job. */
  runnerTemp: string | undefined;
  /** $GITHUB_PATH: the file command that prepends a directory to PATH for the later steps. */
  githubPath: string | undefined;
  /** The Node that runs the action. */
  node: string;
  /** The bundle's command-line entry. */
  cli: string;
}

export interface Installed {
  dir: string;
  /** False when an earlier use in the job installed the same launcher. */
  added: boolean;
}

/** Undefined off a runner (no RUNNER_TEMP or GITHUB_PATH): there is no job to install for. */
export function installLauncher(launcher: Launcher): Installed | undefined {
  const { runnerTemp, githubPath } = launcher;
  if (!runnerTemp || !githubPath) return undefined;
  const dir = join(runnerTemp, 'aip-bin');
  const files = { aip: posixLauncher(launcher), 'aip.cmd': windowsLauncher(launcher) };
  const current = Object.entries(files).every(([name, text]) => sameText(join(dir, name), text));
  if (current) return { dir, added: false };
  mkdirSync(dir, { recursive: true });
  // Whole or not at all: a later step must never run half a launcher.
  for (const [name, text] of Object.entries(files)) writeFileAtomic(join(dir, name), text, { mode: 0o755 });
  appendFileSync(githubPath, `${dir}${EOL}`, 'utf8');
  return { dir, added: true };
}

function sameText(file: string, text: string): boolean {
  return existsSync(file) && readFileSync(file, 'utf8') === text;
}

/** sh, with the paths in single quotes (a quote inside one closed, escaped and reopened). */
function posixLauncher({ node, cli }: Launcher): string {
  const quote = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;
  return `#!/bin/sh\nexec ${quote(node)} ${quote(cli)} "$@"\n`;
}

/** cmd.exe: %* passes the arguments on as given. Paths in a runner's layout hold no quote. */
function windowsLauncher({ node, cli }: Launcher): string {
  return `@"${node}" "${cli}" %*\r\n`;
}
