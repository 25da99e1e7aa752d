// The action's entry (action.yml: runs.using node24, main action/index.js): what the runner starts with
// `node`, in the workspace, the inputs in INPUT_* variables. It splits `args` into words, puts aip on
// PATH for the job's later steps, and runs aip in this same process from the bundle beside it: no npm,
// no build, no setup-node on the user's runner. aip's exit code is the step's; its annotations,
// outputs and step summary are its own, written as on any runner (src/ci/).

import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { workflowCommand } from '../ci/workflow-commands.js';
import { ExitCode } from '../errors/errors.js';
import { ArgsError, splitArgs } from './args.js';
import { type Env, getInput } from './inputs.js';
import { installLauncher } from './install.js';

type AipMain = (argv: string[]) => Promise<number>;

async function runAction(env: Env = process.env): Promise<number> {
  const here = dirname(fileURLToPath(import.meta.url));
  let words: string[];
  try {
    words = splitArgs(getInput(env, 'args'));
  } catch (error) {
    if (!(error instanceof ArgsError)) throw error;
    return refuse(error.message);
  }
  const cli = join(here, 'aip-cli.js');
  installLauncher({ runnerTemp: env.RUNNER_TEMP, githubPath: env.GITHUB_PATH, node: process.execPath, cli });
  // Relative to the workspace, where the runner starts the action.
  const directory = getInput(env, 'working-directory') || '.';
  try {
    process.chdir(resolve(directory));
  } catch (error) {
    const reason =
      (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'does not exist' : 'cannot be entered';
    return refuse(`working-directory: ${directory} ${reason} (it is relative to the workspace)`);
  }
  const { main } = createRequire(import.meta.url)(join(here, 'aip.js')) as { main: AipMain };
  return main(words);
}

/** An input aip cannot run with: one annotation, exit 2 (usage), nothing run. */
function refuse(message: string): number {
  process.stderr.write(`${workflowCommand('error', { title: 'aip' }, message)}\n`);
  return ExitCode.usage;
}

runAction().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`${workflowCommand('error', { title: 'aip' }, String(error))}\n`);
    process.exitCode = ExitCode.error;
  },
);
