// A GitHub Actions runner's layout, for running the action as a runner runs it (actions/runner
// src/Runner.Worker/Handlers/NodeScriptActionHandler.cs): the action's repository checked out at its
// ref under _work/_actions/<owner>/<name>/<ref>, outside the workspace; the workspace at
// _work/<repo>/<repo>; the job's temporary directory _work/_temp holding the file commands; and the
// action started as `node <checkout>/<runs.main>`, in the workspace, with one INPUT_* variable per
// input (the defaults of action.yml filled in, as the runner fills them).
//
// The checkout is this repository's files as git has them (tracked, and new files not ignored: what a
// commit would hold), so node_modules and dist/ are not in it, as they are not at a ref.

import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { collect, type Spawned } from '../helpers/spawn.js';
import { tempDir } from '../helpers/temp.js';

export const REPO = fileURLToPath(new URL('../..', import.meta.url));

export interface ActionMetadata {
  runs: { using: string; main?: string };
  inputs: Record<string, { description: string; required?: boolean; default?: string }>;
  outputs: Record<string, { description: string; value?: string }>;
}

export function actionMetadata(dir = REPO): ActionMetadata {
  return parse(readFileSync(join(dir, 'action.yml'), 'utf8')) as ActionMetadata;
}

export interface RunnerLayout {
  root: string;
  /** Where the action is checked out: <root>/_work/_actions/aip-cli/aip/v1. */
  action: string;
  /** GITHUB_WORKSPACE. */
  workspace: string;
  /** RUNNER_TEMP. */
  temp: string;
  files: { output: string; summary: string; path: string; env: string };
}

/** The files of this repository that a checkout at a ref of it would have. */
function checkedInFiles(): string[] {
  const listed = spawnSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
    cwd: REPO,
    encoding: 'utf8',
  });
  if (listed.status !== 0) throw new Error(`git ls-files failed: ${listed.stderr}`);
  return listed.stdout.split('\0').filter(Boolean);
}

export function runnerLayout(): RunnerLayout {
  const root = tempDir('aip-runner-');
  const action = join(root, '_work', '_actions', 'aip-cli', 'aip', 'v1');
  for (const file of checkedInFiles()) {
    mkdirSync(dirname(join(action, file)), { recursive: true });
    // A file deleted in the working tree but not yet in git's index is not in a checkout either.
    try {
      copyFileSync(join(REPO, file), join(action, file));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }
  const workspace = join(root, '_work', 'project', 'project');
  const temp = join(root, '_work', '_temp');
  const commands = join(temp, '_runner_file_commands');
  mkdirSync(workspace, { recursive: true });
  mkdirSync(commands, { recursive: true });
  const files = {
    output: join(commands, 'set_output_1'),
    summary: join(commands, 'step_summary_1'),
    path: join(commands, 'add_path_1'),
    env: join(commands, 'set_env_1'),
  };
  for (const file of Object.values(files)) writeFileSync(file, '');
  return { root, action, workspace, temp, files };
}

/** INPUT_<NAME> as the runner names it: upper case, spaces as underscores (hyphens kept). */
export function inputVariable(name: string): string {
  return `INPUT_${name.replace(/ /g, '_').toUpperCase()}`;
}

/**
 * One step that uses the action: `with` its inputs, `env` the step's env (the emulator's URLs and key).
 * The file commands are made empty before the step, as the runner gives each step new ones.
 */
export function runStep(
  layout: RunnerLayout,
  step: { with: Record<string, string>; env?: Record<string, string>; timeoutMs?: number },
): Promise<Spawned> {
  writeFileSync(layout.files.output, '');
  writeFileSync(layout.files.summary, '');
  const metadata = actionMetadata(layout.action);
  const inputs: Record<string, string> = {};
  for (const [name, input] of Object.entries(metadata.inputs)) {
    const value = step.with[name] ?? input.default;
    if (value !== undefined) inputs[inputVariable(name)] = value;
  }
  const main = join(layout.action, metadata.runs.main ?? 'missing runs.main');
  const child = spawn(process.execPath, [main], {
    cwd: layout.workspace,
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: join(layout.root, 'home'),
      ...(process.env.TMPDIR ? { TMPDIR: process.env.TMPDIR } : {}),
      ...(process.env.AIP_TEST_RUN ? { AIP_TEST_RUN: process.env.AIP_TEST_RUN } : {}),
      AIP_KEYRING: 'off',
      CI: 'true',
      GITHUB_ACTIONS: 'true',
      GITHUB_WORKSPACE: layout.workspace,
      RUNNER_TEMP: layout.temp,
      GITHUB_OUTPUT: layout.files.output,
      GITHUB_STEP_SUMMARY: layout.files.summary,
      GITHUB_PATH: layout.files.path,
      GITHUB_ENV: layout.files.env,
      ...step.env,
      ...inputs,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return collect(child, step.timeoutMs);
}

/** The directories the steps added to PATH with $GITHUB_PATH, in order. */
export function addedPaths(layout: RunnerLayout): string[] {
  return readFileSync(layout.files.path, 'utf8').split(/\r?\n/).filter(Boolean);
}
