#!/usr/bin/env node
// A smoke of every command, run by the Node that runs this script (CI runs it on the Node lines the
// whole suite does not: `"$(bash scripts/node-line.sh 26)/node" scripts/smoke.mjs`). It needs dist/
// (npm run build). In a temporary HOME, with nothing of the user's:
//   1. every command and subcommand of the tree (found through `aip __complete`) prints its --help;
//   2. a durable emulator starts in the background, and a session uses each interface through the
//      commands a user runs first: models, jobs, events, checkpoints, chat, rollouts, eval, train rl,
//      traces, config, doctor, the emulator's own.
// Every command must exit as expected and print no warning of Node's (an ExperimentalWarning, say)
// on stderr. Prints one line per step and a summary; exits 1 on the first failure.

import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const bin = join(root, 'bin', 'aip.js');
const work = mkdtempSync(join(tmpdir(), 'aip-smoke-'));
const home = join(work, 'home');
mkdirSync(home);
const baseEnv = {
  PATH: process.env.PATH ?? '/usr/bin:/bin',
  HOME: home,
  TMPDIR: work,
  AIP_KEYRING: 'off',
  NO_COLOR: '1',
};
let env = { ...baseEnv };
let steps = 0;

function aip(args, { expect = 0, input = '' } = {}) {
  const r = spawnSync(process.execPath, [bin, ...args], {
    env,
    cwd: root,
    input,
    encoding: 'utf8',
    timeout: 120_000,
  });
  const shown = `aip ${args.join(' ')}`;
  if (r.status !== expect)
    throw new Error(`${shown}: exit ${r.status ?? r.signal} (expected ${expect})\n${r.stderr.slice(-2000)}`);
  if (/(Experimental|Deprecation)Warning|^\(node:\d+\)/m.test(r.stderr))
    throw new Error(`${shown}: Node printed a warning:\n${r.stderr.slice(-2000)}`);
  steps++;
  return r.stdout;
}

/** Every command path of the tree, from `aip __complete` (what a TAB offers). */
function commandPaths(prefix = []) {
  const out = aip(['__complete', '--', ...prefix, '']);
  const names = out
    .split('\n')
    .filter((line) => line && !line.startsWith(':'))
    .map((line) => line.split('\t')[0])
    .filter((name) => name !== 'help' || prefix.length === 0);
  return names.flatMap((name) => [
    [...prefix, name],
    ...(prefix.length < 2 ? commandPaths([...prefix, name]) : []),
  ]);
}

try {
  const paths = commandPaths();
  for (const path of paths) aip([...path, '--help']);
  console.log(`smoke on Node ${process.version}: --help of ${paths.length} commands`);

  const state = join(work, 'state');
  const started = JSON.parse(aip(['emulator', '--detach', '--port', '0', '--state-dir', state, '--json']));
  const { origin } = started;
  env = {
    ...baseEnv,
    AIP_BASE_URL: `${origin}/training/v1`,
    AIP_INFERENCE_URL: `${origin}/inference/v1`,
    AIP_TRACE_URL: `${origin}/trace`,
    AIP_API_KEY: 'aip-emulator-local-key',
    AIP_PROJECT: 'local/demo',
  };
  try {
    const status = JSON.parse(aip(['emulator', 'status', '--json']));
    if (status.state_dir !== state) throw new Error(`the emulator is not durable: ${JSON.stringify(status)}`);
    aip(['health']);
    aip(['doctor']);
    aip(['models', 'list']);
    aip([
      'models',
      'create',
      '--name',
      'smoke',
      '--base-model',
      'OpenPipe/Qwen3-14B-Instruct',
      '--return-existing',
    ]);
    aip(['jobs', 'validate', 'rl', 'examples/groups.jsonl']);
    const job = aip([
      '-q',
      'jobs',
      'create',
      'rl',
      '--model',
      'smoke',
      '--file',
      'examples/groups.jsonl',
      '--wait',
    ]).trim();
    aip(['jobs', 'get', job]);
    aip(['jobs', 'list']);
    aip(['events', job, '--jq', '.[].type']);
    aip(['checkpoints', 'list', 'smoke', '--plot', 'reward']);
    aip(['checkpoints', 'prune', 'smoke', '--keep-last', '1', '--dry-run']);
    aip(['chat', '-m', 'smoke', 'How did the training go?']);
    aip(['chat', '-m', 'openai/gpt-oss-20b', '--no-stream'], { input: 'Hello' });
    const groups = join(work, 'groups.jsonl');
    aip([
      'rollouts',
      '--model',
      'smoke',
      '--tasks',
      'examples/arithmetic.jsonl',
      '--reward',
      'exact',
      '-K',
      '2',
      '-o',
      groups,
    ]);
    aip(['eval', '--model', 'smoke', '--tasks', 'examples/arithmetic.jsonl', '--reward', 'exact', '-K', '2']);
    aip([
      'train',
      'rl',
      '--model',
      'smoke',
      '--tasks',
      'examples/arithmetic.jsonl',
      '--steps',
      '1',
      '-K',
      '2',
      '--reward-cmd',
      `"${process.execPath}" examples/reward.mjs`,
      '--run-dir',
      join(work, 'run'),
    ]);
    const spans = join(work, 'spans.jsonl');
    aip(['traces', 'generate', '--spans', '200', '-o', spans]);
    aip(['traces', 'send', spans]);
    aip(['traces', 'exec', '--name', 'smoke', '--', process.execPath, '-e', '0']);
    aip(['config', 'list', '--sources']);
    aip(['help', 'exit-codes']);
    aip(['system-check']);
    writeFileSync(join(work, 'empty.jsonl'), '');
    aip(['jobs', 'validate', 'rl', join(work, 'empty.jsonl')], { expect: 2 });
  } finally {
    env = { ...baseEnv };
    aip(['emulator', 'stop']);
  }
  console.log(
    `smoke on Node ${process.version}: ${steps} commands, all as expected, durable emulator, no warning`,
  );
} catch (error) {
  console.error(`smoke on Node ${process.version} failed: ${error.message}`);
  process.exitCode = 1;
} finally {
  rmSync(work, { recursive: true, force: true });
}
