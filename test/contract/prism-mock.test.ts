// Every Training API command of aip against Stoplight Prism as a mock of the published document: once
// against its static answers, and many times against random contract-valid ones (--dynamic, seeded per
// request, so every run can be replayed). Whatever the document allows the server to say, aip must
// not crash, hang, print a stack trace, exit with a code it does not document, or exit 0 having
// printed nothing. Its requests must still conform (Prism checks them as a mock too).

import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { describeWithContract } from '../helpers/openapi.js';
import { patience } from '../helpers/patience.js';
import { type PrismServer, startPrism } from '../helpers/prism.js';
import {
  type BoundedRun,
  clip,
  contractProblems,
  describeExchange,
  runBounded,
  runProblems,
  SEED,
  writeTrainingFiles,
} from './oracle.js';

/** At least this many dynamic runs in all (each command gets the same share, rounded up). */
const DYNAMIC_RUNS = 200;
/**
 * A run still going after this is pressed Ctrl-C, and counted as a hang. A run takes well under a
 * second against a mock on a quiet machine; on a busy one Prism alone takes seconds to answer, so the
 * bound is for that machine (test/helpers/patience.ts): a run that hangs never ends at all.
 */
const BOUND_MS = patience(30_000);
const MODEL = '3f0c2a1e-5b6d-4c7e-8f90-a1b2c3d4e5f6';
const JOB = '7d1e9b20-4a3c-4b5d-9e6f-0a1b2c3d4e5f';
const ARTIFACT = 'wandb-artifact:///local/demo/agent:step1';
const BASE_MODEL = 'OpenPipe/Qwen3-14B-Instruct';
/**
 * The commands that poll until the job ends: bounded by aip's own --timeout (exit 7 is fine). It is
 * also each request's timeout, so it leaves room for a mock slowed by a busy machine: with 1 s, a
 * create timed out before Prism answered it, once, with four test workers on two cores; with 3 s, with
 * four CPU-bound processes beside them. Only the static mock's jobs never end, and its runs go side
 * by side: the longer bound costs the file a few seconds, once (test/helpers/patience.ts).
 */
const WAITING = ['--timeout', String(patience(10_000) / 1000)];

interface Command {
  name: string;
  args: (files: { groups: string; sft: string }) => string[];
  /** stdout is a terminal (chat streams there). */
  tty?: boolean;
  /** A promise of the command's own, checked on every run (problems, or none). */
  check?: (stdout: string) => string[];
}

/** product.md §2: `events --follow` never prints an event twice (its lines are type, id, data). */
function eachEventOnce(stdout: string): string[] {
  const seen = new Map<string, number>();
  for (const line of stdout.split('\n').filter(Boolean)) {
    const id = line.split('\t')[1] ?? line;
    seen.set(id, (seen.get(id) ?? 0) + 1);
  }
  return [...seen]
    .filter(([, n]) => n > 1)
    .map(([id, n]) => `event ${id} printed ${n} times (--follow never prints an event twice)`);
}

const chat = (...more: string[]) => ['chat', '--api', 'training', '-m', ARTIFACT, ...more, 'hello'];

const COMMANDS: Command[] = [
  { name: 'health', args: () => ['health'] },
  { name: 'system-check', args: () => ['system-check'] },
  { name: 'system-check --json', args: () => ['system-check', '--json'] },
  { name: 'auth status', args: () => ['auth', 'status'] },
  { name: 'models base', args: () => ['models', 'base'] },
  { name: 'models create', args: () => ['models', 'create', '--name', 'agent', '--base-model', BASE_MODEL] },
  {
    name: 'models create --return-existing',
    args: () => [
      'models',
      'create',
      '--name',
      'agent',
      '--base-model',
      BASE_MODEL,
      '--return-existing',
      '--json',
    ],
  },
  { name: 'models delete', args: () => ['models', 'delete', MODEL, '--yes'] },
  { name: 'models log', args: (f) => ['models', 'log', MODEL, '--split', 'train', '--file', f.groups] },
  { name: 'checkpoints list', args: () => ['checkpoints', 'list', MODEL] },
  { name: 'checkpoints list --all', args: () => ['checkpoints', 'list', MODEL, '--all'] },
  { name: 'checkpoints list --after', args: () => ['checkpoints', 'list', MODEL, '--after', JOB] },
  { name: 'checkpoints list --order desc', args: () => ['checkpoints', 'list', MODEL, '--order', 'desc'] },
  { name: 'checkpoints list --plot', args: () => ['checkpoints', 'list', MODEL, '--plot', 'reward'] },
  { name: 'checkpoints list --json', args: () => ['checkpoints', 'list', MODEL, '--json'] },
  { name: 'checkpoints list --all --json', args: () => ['checkpoints', 'list', MODEL, '--all', '--json'] },
  { name: 'checkpoints delete', args: () => ['checkpoints', 'delete', MODEL, '--steps', '1-3', '--yes'] },
  {
    name: 'checkpoints prune --dry-run',
    args: () => ['checkpoints', 'prune', MODEL, '--keep-last', '2', '--dry-run'],
  },
  {
    name: 'checkpoints prune',
    args: () => ['checkpoints', 'prune', MODEL, '--keep-last', '2', '--keep-best', 'reward', '--yes'],
  },
  { name: 'jobs create rl', args: (f) => ['jobs', 'create', 'rl', '--model', MODEL, '--file', f.groups] },
  {
    name: 'jobs create rl --wait',
    args: (f) => [
      ...WAITING,
      'jobs',
      'create',
      'rl',
      '--model',
      MODEL,
      '--file',
      f.groups,
      '--wait',
      '--interval',
      '0.01',
    ],
  },
  {
    name: 'jobs create sft',
    args: (f) => [
      'jobs',
      'create',
      'sft',
      '--model',
      MODEL,
      '--data-url',
      'wandb-artifact:///local/demo/train:v0',
      '--file',
      f.sft,
    ],
  },
  {
    name: 'jobs create sft --wait',
    args: () => [
      ...WAITING,
      'jobs',
      'create',
      'sft',
      '--model',
      MODEL,
      '--data-url',
      'wandb-artifact:///local/demo/train:v0',
      '--wait',
      '--interval',
      '0.01',
    ],
  },
  { name: 'jobs get', args: () => ['jobs', 'get', JOB] },
  { name: 'jobs get --json', args: () => ['jobs', 'get', JOB, '--json'] },
  { name: 'jobs wait', args: () => [...WAITING, 'jobs', 'wait', JOB, '--interval', '0.01'] },
  { name: 'events', args: () => ['events', JOB] },
  { name: 'events --all', args: () => ['events', JOB, '--all'] },
  { name: 'events --after', args: () => ['events', JOB, '--after', MODEL, '--limit', '5'] },
  {
    name: 'events --follow',
    args: () => [...WAITING, 'events', JOB, '--follow', '--interval', '0.01'],
    check: eachEventOnce,
  },
  { name: 'events --jsonl', args: () => ['events', JOB, '--jsonl'] },
  { name: 'events --json', args: () => ['events', JOB, '--all', '--json'] },
  { name: 'chat (streamed on a terminal)', args: () => chat(), tty: true },
  { name: 'chat --no-stream', args: () => chat('--no-stream') },
  { name: 'chat --json', args: () => chat('--json') },
  {
    name: 'chat logprobs --json',
    args: () => chat('--json', '-o', 'logprobs=true', '-o', 'top_logprobs=2'),
  },
  {
    name: 'chat logprobs (streamed)',
    args: () => chat('-o', 'logprobs=true', '-o', 'top_logprobs=2'),
    tty: true,
  },
];

const PER_COMMAND = Math.ceil(DYNAMIC_RUNS / COMMANDS.length);

interface Outcome {
  mode: 'static' | 'dynamic';
  label: string;
  command: string;
  args: string[];
  run: BoundedRun;
  problems: string[];
}

describeWithContract('Prism mock of the document: aip against any answer it allows', (document) => {
  let emu: TestEmulator;
  let staticMock: PrismServer | undefined;
  let dynamicMock: PrismServer | undefined;
  let dir: string;
  let files: { groups: string; sft: string };
  const outcomes: Outcome[] = [];

  beforeAll(async () => {
    // The emulator serves only the other two interfaces (auth status and health look at them).
    emu = await startTestEmulator();
    // Both at once; whichever started is closed in afterAll even when the other did not.
    const [stat, dyn] = await Promise.allSettled([
      startPrism(document, { mode: 'mock', dynamic: false }),
      startPrism(document, { mode: 'mock', dynamic: true, seed: SEED }),
    ]);
    if (stat.status === 'fulfilled') staticMock = stat.value;
    if (dyn.status === 'fulfilled') dynamicMock = dyn.value;
    for (const result of [stat, dyn]) if (result.status === 'rejected') throw result.reason;
    dir = mkdtempSync(join(tmpdir(), 'aip-test-prism-mock-'));
    files = writeTrainingFiles(dir);
  }, patience(120_000));

  /** The mock of a mode (started in beforeAll: the tests do not run when it failed). */
  function mock(mode: 'static' | 'dynamic'): PrismServer {
    const prism = mode === 'static' ? staticMock : dynamicMock;
    if (!prism) throw new Error(`the ${mode} mock did not start`);
    return prism;
  }

  afterAll(async () => {
    if (outcomes.length > 0) console.log(summary());
    await Promise.all([staticMock?.close(), dynamicMock?.close()]);
    await emu?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  function summary(): string {
    const dynamic = outcomes.filter((o) => o.mode === 'dynamic');
    const failed = outcomes.filter((o) => o.problems.length > 0);
    const kinds = new Map<string, number>();
    for (const o of failed)
      for (const p of o.problems) {
        const kind = p.replace(/:.*$/s, '').replace(/ within \d+ ms.*$/, '');
        kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
      }
    const crashes = outcomes.filter((o) =>
      o.problems.some((p) => /stack trace|unexpected failure|not one of aip's exit codes/.test(p)),
    );
    const codes = new Map<number, number>();
    for (const o of dynamic) codes.set(o.run.code, (codes.get(o.run.code) ?? 0) + 1);
    return [
      `Prism mock (seed ${SEED}): ${COMMANDS.length} commands; ${outcomes.length - dynamic.length} static runs, ` +
        `${dynamic.length} dynamic runs (${PER_COMMAND} per command), ` +
        `${outcomes.reduce((n, o) => n + mock(o.mode).exchanges(o.label).length, 0)} exchanges`,
      `  dynamic exit codes: ${[...codes]
        .sort((a, b) => a[0] - b[0])
        .map(([c, k]) => `${c}×${k}`)
        .join(' ')}`,
      `  crashes (stack trace, "unexpected failure", undocumented exit code): ${crashes.length}; ` +
        `hangs: ${outcomes.filter((o) => o.run.interrupted).length}; ` +
        `runs failing any criterion: ${failed.length} (static ${failed.filter((o) => o.mode === 'static').length}, dynamic ${failed.filter((o) => o.mode === 'dynamic').length})`,
      ...[...kinds].map(([kind, k]) => `    ${kind}: ${k}`),
      ...failed.map(
        (o) =>
          `  FAILED ${o.mode} ${o.label} aip ${o.args.join(' ')} → exit ${o.run.code}: ${o.problems.join('; ')}`,
      ),
    ].join('\n');
  }

  async function runOnce(mode: 'static' | 'dynamic', label: string, command: Command): Promise<Outcome> {
    const prism = mock(mode);
    const args = command.args(files);
    const configDir = join(dir, label);
    mkdirSync(configDir, { recursive: true });
    const run = await runBounded(args, {
      env: {
        ...emu.env,
        AIP_BASE_URL: prism.baseUrl(label),
        AIP_CONFIG_DIR: configDir,
        AIP_PROJECT: 'local/demo',
        NO_COLOR: '1',
      },
      stdoutTTY: command.tty,
      sleepCap: 10,
      boundMs: BOUND_MS,
      onGiveUp: () => prism.stopRun(label),
    });
    const exchanges = prism.exchanges(label);
    const problems = [
      ...runProblems(run, BOUND_MS),
      ...(run.hung ? [] : (command.check?.(run.stdout) ?? [])),
      ...exchanges.flatMap(contractProblems),
    ];
    if (exchanges.length === 0 && !run.hung) problems.push('no request reached the Training API mock');
    const outcome = { mode, label, command: command.name, args, run, problems };
    outcomes.push(outcome);
    return outcome;
  }

  function report(o: Outcome, prism: PrismServer): string {
    return [
      `${o.mode} mock, run ${o.label}, seed ${SEED} (replay: AIP_TEST_SEED=${SEED} npx vitest run test/contract/prism-mock.test.ts)`,
      `aip ${o.args.join(' ')}  → exit ${o.run.code} after ${o.run.ms} ms`,
      ...o.problems.map((p) => `  problem: ${p}`),
      `stdout: ${clip(o.run.stdout, 400)}`,
      `stderr: ${clip(o.run.stderr, 800)}`,
      'exchanges:',
      ...prism
        .exchanges(o.label)
        .slice(0, 12)
        .map((e) => `  ${describeExchange(e)}`),
    ].join('\n');
  }

  describe.concurrent('static answers (the document’s stubs)', () => {
    COMMANDS.forEach((command, i) => {
      it(command.name, async ({ expect }) => {
        const o = await runOnce('static', `s${i}`, command);
        expect(o.problems, report(o, mock('static'))).toEqual([]);
      });
    });
  });

  describe.concurrent(`dynamic answers, seeded (${PER_COMMAND} runs per command)`, () => {
    COMMANDS.forEach((command, i) => {
      it(
        command.name,
        async ({ expect }) => {
          const failures: string[] = [];
          for (let k = 0; k < PER_COMMAND; k++) {
            const o = await runOnce('dynamic', `d${i}.${k}`, command);
            if (o.problems.length > 0) failures.push(report(o, mock('dynamic')));
            // One hang is enough to know: the rest of this command's runs would wait as long.
            if (o.run.interrupted) break;
          }
          expect(failures, failures.join('\n\n')).toEqual([]);
        },
        PER_COMMAND * (BOUND_MS + 3000),
      );
    });
  });

  it('ran at least the dynamic runs asked for', ({ expect }) => {
    const dynamic = outcomes.filter((o) => o.mode === 'dynamic');
    const stoppedEarly = new Set(dynamic.filter((o) => o.run.interrupted).map((o) => o.command));
    expect(dynamic.length + stoppedEarly.size * PER_COMMAND).toBeGreaterThanOrEqual(DYNAMIC_RUNS);
    expect(outcomes.filter((o) => o.mode === 'static')).toHaveLength(COMMANDS.length);
  });
});
