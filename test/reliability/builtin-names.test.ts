// Issue 28: a name a user types, a file holds or a server sends is never looked up as a property every
// JavaScript object has. Each kind of name aip takes (profiles by flag, by AIP_PROFILE and in the config
// file; settings keys; help topics; model names; job ids; metric names from the server and from
// --plot/--keep-best; task ids) is fed every built-in property name (builtin-names.ts) and random
// strings: the command behaves as it does for any other name it does not know (the documented
// not-found or usage error and its exit code), or, for a name that exists, finds that one.

import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseParams } from '../../src/chat/params.js';
import { ownValue } from '../../src/lib/own.js';
import { readConfigFile } from '../../src/settings/config-file.js';
import { builtinProfile, isBuiltinProfile } from '../../src/settings/profiles.js';
import { runCli, tempConfigDir } from '../helpers/cli.js';
import { useEmulator } from '../helpers/emulator.js';
import { patience } from '../helpers/patience.js';
import { writeArithmeticTasks } from '../helpers/tasks.js';
import { tempDir } from '../helpers/temp.js';
import { BUILTIN_NAMES } from './builtin-names.js';

const { emu, run } = useEmulator({ fresh: 'file' });

/**
 * `check` for every built-in name that `accept`s (fast-check's examples), then for RANDOM_RUNS names
 * drawn from the built-in ones and `random` strings.
 */
const RANDOM_RUNS = 25;
const names = (random: fc.Arbitrary<string> = fc.string({ minLength: 1, maxLength: 16 })) =>
  fc.oneof(fc.constantFrom(...BUILTIN_NAMES), random);
async function checkAll(
  check: (name: string) => Promise<void>,
  accept: (name: string) => boolean = () => true,
  random?: fc.Arbitrary<string>,
): Promise<void> {
  const examples = BUILTIN_NAMES.filter(accept).map((name) => [name] as [string]);
  await fc.assert(fc.asyncProperty(names(random).filter(accept), check), {
    examples,
    numRuns: examples.length + RANDOM_RUNS,
  });
}

const BUILTIN_PROFILES = ['default', 'local', 'forge'];
const VALID_PROFILE = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;
const PRODUCTION = 'https://api.training.wandb.ai/v1';

/** What every run must not say: a crash, or a built-in's text taken for a value. */
function expectNoBuiltin(r: { stdout: string; stderr: string }): void {
  expect(r.stderr).not.toMatch(/unexpected failure|internal:|\[object |function \w*\(|native code/);
  expect(r.stdout).not.toMatch(/\[object |function \w*\(|native code/);
}

/** A profile that does not exist: exit 2, said as such (or, not a name at all: exit 2 too). */
function expectNoSuchProfile(r: { code: number; stdout: string; stderr: string }, name: string): void {
  expectNoBuiltin(r);
  expect(r.code, r.stderr).toBe(2);
  expect(r.stdout).toBe('');
  expect(r.stderr).toMatch(
    VALID_PROFILE.test(name) ? /profile ".*" does not exist in / : /invalid profile name/,
  );
}

describe('profile names', () => {
  const unknownProfile = (n: string) => !BUILTIN_PROFILES.includes(n) && n !== 'mine';
  /** No emulator needed: only the config directory, the keychain off. */
  const offline = (argv: string[], extra: Record<string, string> = {}, dir = tempConfigDir()) =>
    runCli(argv, { env: { AIP_CONFIG_DIR: dir, AIP_KEYRING: 'off', ...extra } });

  it('--profile NAME that is neither stored nor built in is an error, never the production settings', async () => {
    const dir = tempConfigDir();
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ profiles: { mine: { project: 'a/b' } } }));
    await checkAll(async (name) => {
      for (const argv of [
        ['--profile', name, 'config', 'get', 'base-url'],
        ['--profile', name, 'config', 'list', '--json'],
        ['--profile', name, 'config', 'unset', 'project'],
        ['--profile', name, 'auth', 'logout'],
      ]) {
        const r = await offline(argv, {}, dir);
        expectNoSuchProfile(r, name);
        expect(r.stdout).not.toContain(PRODUCTION);
      }
    }, unknownProfile);
  });

  it('AIP_PROFILE=NAME likewise', async () => {
    await checkAll(
      async (name) => {
        const r = await offline(['config', 'get', 'base-url'], { AIP_PROFILE: name });
        expectNoSuchProfile(r, name.trim());
      },
      (n) => unknownProfile(n.trim()) && n.trim() !== '',
    );
  });

  it('a profile of that name in the config file is found, and only that one', async () => {
    await checkAll(async (name) => {
      const dir = tempConfigDir();
      const file = join(dir, 'config.json');
      // Written as JSON text: a "__proto__" key is a key like any other in the file.
      writeFileSync(file, `{"profiles": {${JSON.stringify(name)}: {"project": "team/stored"}}}`);
      const listed = await offline(['config', 'profiles', '--json'], {}, dir);
      expectNoBuiltin(listed);
      expect(listed.code, listed.stderr).toBe(0);
      const rows = JSON.parse(listed.stdout) as Array<{ name: string; builtin: boolean; stored: boolean }>;
      expect(rows.map((row) => row.name).sort()).toEqual([...BUILTIN_PROFILES, name].sort());
      expect(rows.find((row) => row.name === name)).toMatchObject({ builtin: false, stored: true });
      if (!VALID_PROFILE.test(name)) return;
      const got = await offline(['--profile', name, 'config', 'get', 'project'], {}, dir);
      expect([got.code, got.stdout, got.stderr]).toEqual([0, 'team/stored\n', '']);
      const url = await offline(['--profile', name, 'config', 'get', 'base-url'], {}, dir);
      expect([url.code, url.stdout]).toEqual([0, `${PRODUCTION}\n`]);
      // Changed and removed in that profile, and nowhere else.
      expect((await offline(['--profile', name, 'config', 'set', 'output', 'json'], {}, dir)).code).toBe(0);
      expect((await offline(['--profile', name, 'config', 'unset', 'project'], {}, dir)).code).toBe(0);
      const profiles = JSON.parse(readFileSync(file, 'utf8')).profiles;
      expect(Object.keys(profiles)).toEqual([name]);
      expect(Object.entries(profiles[name])).toEqual([['output', 'json']]);
    }, unknownProfile);
  });

  it('config set creates a profile of that name, which then exists', async () => {
    await checkAll(
      async (name) => {
        const dir = tempConfigDir();
        const set = await offline(['--profile', name, 'config', 'set', 'project', 'team/made'], {}, dir);
        expectNoBuiltin(set);
        expect(set.code, set.stderr).toBe(0);
        const got = await offline(['--profile', name, 'config', 'get', 'project'], {}, dir);
        expect([got.code, got.stdout]).toEqual([0, 'team/made\n']);
        const profiles = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')).profiles;
        expect(profiles).toEqual({ [name]: { project: 'team/made' } });
      },
      (n) => unknownProfile(n) && VALID_PROFILE.test(n),
    );
  });
});

describe('settings keys and help topics', () => {
  it('config get/set/unset NAME of no setting is a usage error', async () => {
    await checkAll(async (name) => {
      for (const argv of [
        ['config', 'get', name],
        ['config', 'set', name, 'x'],
        ['config', 'unset', name],
      ]) {
        const r = await run(argv);
        expectNoBuiltin(r);
        expect(r.code, r.stderr).toBe(2);
        expect(r.stdout).toBe('');
      }
    });
  });

  it('help NAME of no topic or command is a usage error', async () => {
    // Words of lower-case letters and dashes are left to the built-in names: a random one could be a command.
    const random = fc.string({ minLength: 1, maxLength: 16 }).filter((s) => !/^[a-z-]+$/.test(s));
    await checkAll(
      async (name) => {
        const r = await run(['help', name]);
        expectNoBuiltin(r);
        expect(r.code, r.stderr).toBe(2);
        expect(r.stdout).toBe('');
        expect(r.stderr).toContain('no help topic or command');
      },
      undefined,
      random,
    );
  });
});

describe('model names, job ids, metric names, task ids', () => {
  const groups = join(tempDir('aip-names-'), 'groups.jsonl');
  writeFileSync(
    groups,
    `${JSON.stringify({
      trajectories: [
        {
          messages_and_choices: [
            { role: 'user', content: 'hi' },
            { role: 'assistant', content: 'yo' },
          ],
          reward: 1,
        },
        {
          messages_and_choices: [
            { role: 'user', content: 'hi' },
            { role: 'assistant', content: 'no' },
          ],
          reward: 0,
        },
      ],
    })}\n`,
  );
  const notAModel = (n: string) => !n.startsWith('-');

  it('a model NAME this machine does not know is not found (exit 3)', async () => {
    await checkAll(async (name) => {
      for (const argv of [
        ['checkpoints', 'list', name],
        ['jobs', 'create', 'rl', '--model', name, '--file', groups, '-q'],
      ]) {
        const r = await run(argv);
        expectNoBuiltin(r);
        expect(r.code, `${argv.join(' ')}: ${r.stderr}`).toBe(3);
        expect(r.stdout).toBe('');
      }
    }, notAModel);
  });

  it('chat -m NAME the server does not serve is not found (exit 3)', async () => {
    await checkAll(async (name) => {
      const r = await run(['chat', '-m', name, 'hi']);
      expectNoBuiltin(r);
      expect(r.code, r.stderr).toBe(3);
    }, notAModel);
  });

  it('a model created with that NAME is the one found by it', async () => {
    await checkAll(
      async (name) => {
        const created = await run([
          'models',
          'create',
          '--name',
          name,
          '--base-model',
          'OpenPipe/Qwen3-14B-Instruct',
          '--return-existing',
          '-q',
        ]);
        expectNoBuiltin(created);
        if (created.code !== 0) {
          // A name the server refuses is refused as bad input, as any other.
          expect(created.code, created.stderr).toBe(2);
          return;
        }
        const id = created.stdout.trim();
        const listed = await run(['checkpoints', 'list', name, '--json']);
        expect(listed.code, listed.stderr).toBe(0);
        expect((JSON.parse(listed.stdout) as Array<{ step: number }>).map((c) => c.step)).toEqual([0]);
        expect(
          (await emu.requests({ path: `/training/v1/preview/models/${id}/checkpoints` })).length,
        ).toBeGreaterThan(0);
      },
      undefined,
      fc.stringMatching(/^[a-z][a-z0-9-]{0,15}$/),
    );
  });

  it('a job ID this machine does not know is not found (exit 3) or not an id (exit 2)', async () => {
    await checkAll(async (name) => {
      for (const argv of [
        ['jobs', 'get', name],
        ['events', name],
        ['jobs', 'wait', name, '--timeout', '5'],
      ]) {
        const r = await run(argv);
        expectNoBuiltin(r);
        expect([2, 3], `${argv.join(' ')}: ${r.code} ${r.stderr}`).toContain(r.code);
        expect(r.stdout).toBe('');
      }
    }, notAModel);
  });

  it('a metric NAME the server sends is plotted, kept and chosen by; one it does not send is a usage error', async () => {
    let n = 0;
    await checkAll(async (name) => {
      const model = `metrics-${n++}`;
      const created = await run([
        'models',
        'create',
        '--name',
        model,
        '--base-model',
        'OpenPipe/Qwen3-14B-Instruct',
        '-q',
      ]);
      expect(created.code, created.stderr).toBe(0);
      // JSON.parse: a "__proto__" metric is an own key, sent as such.
      const metrics = JSON.parse(`{${JSON.stringify(name)}: 0.25, "reward": 1}`);
      const added = await emu.control('POST', `/models/${created.stdout.trim()}/checkpoints`, {
        count: 2,
        metrics,
      });
      expect(added.status).toBe(200);
      const plot = await run(['checkpoints', 'list', model, '--all', '--plot', name]);
      expectNoBuiltin(plot);
      expect(plot.code, plot.stderr).toBe(0);
      expect(plot.stdout.split('\n')[0]).toMatch(/ over 2 checkpoints of /);
      const json = await run(['checkpoints', 'list', model, '--all', '--json']);
      const last = (JSON.parse(json.stdout) as Array<{ metrics: Record<string, number> }>).at(-1)!;
      expect(Object.hasOwn(last.metrics, name) && last.metrics[name]).toBe(0.25);
      const prune = await run([
        'checkpoints',
        'prune',
        model,
        '--keep-best',
        `${name}:min`,
        '--dry-run',
        '--json',
      ]);
      expectNoBuiltin(prune);
      expect(prune.code, prune.stderr).toBe(0);
      // A name no checkpoint has, built-in or not: the usage error that names the metrics there are.
      for (const missing of [...BUILTIN_NAMES.filter((m) => m !== name).slice(0, 1), `${name}-none`]) {
        for (const argv of [
          ['checkpoints', 'list', model, '--all', '--plot', missing],
          ['checkpoints', 'prune', model, '--keep-best', missing, '--dry-run'],
        ]) {
          const r = await run(argv);
          expectNoBuiltin(r);
          expect(r.code, `${argv.join(' ')}: ${r.stderr}`).toBe(2);
          expect(r.stderr).toContain('has the metric');
        }
      }
    });
  });

  it('task IDS are kept as given, one group each', { timeout: patience(120_000) }, async () => {
    const created = await run('models create --name tasks --base-model OpenPipe/Qwen3-14B-Instruct -q');
    expect(created.code, created.stderr).toBe(0);
    const dir = tempDir('aip-task-ids-');
    mkdirSync(dir, { recursive: true });
    const template = writeArithmeticTasks(join(dir, 'template.jsonl'), 1);
    const task = JSON.parse(readFileSync(template, 'utf8')) as Record<string, unknown>;
    let n = 0;
    await fc.assert(
      fc.asyncProperty(fc.uniqueArray(names(), { minLength: 1, maxLength: 6 }), async (ids) => {
        const file = join(dir, `tasks-${n}.jsonl`);
        const out = join(dir, `groups-${n++}.jsonl`);
        // Written as JSON text: an "id" of "__proto__" and the rest as they are.
        writeFileSync(file, ids.map((id) => JSON.stringify({ ...task, id })).join('\n'));
        const r = await run([
          'rollouts',
          '--model',
          'tasks',
          '--tasks',
          file,
          '--reward',
          'contains',
          '-K',
          '2',
          '--output',
          out,
          '-q',
        ]);
        expectNoBuiltin(r);
        expect(r.code, r.stderr).toBe(0);
        const got = readFileSync(out, 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((line) => JSON.parse(line) as { metadata: { task_id: string } });
        expect(got.map((g) => g.metadata.task_id).sort()).toEqual([...ids].sort());
      }),
      {
        examples: [
          [BUILTIN_NAMES.slice(0, 6)],
          [BUILTIN_NAMES.slice(6, 12)],
          [['__proto__', 'constructor', 'toString', 'valueOf', 'hasOwnProperty', 'prototype']],
        ],
        numRuns: 12,
      },
    );
  });
});

describe('the dictionaries names are looked up in', () => {
  it('-o NAME=value is a request parameter of that name, __proto__ included', () => {
    for (const name of [...BUILTIN_NAMES, 'model']) {
      const params = parseParams([`${name}={"stream":true}`]);
      expect(Object.keys(params), name).toEqual([name]);
      expect(JSON.parse(JSON.stringify(params)), name).toEqual(
        JSON.parse(`{${JSON.stringify(name)}: {"stream": true}}`),
      );
      expect((params as { stream?: unknown }).stream).toBeUndefined();
    }
  });

  it('the config file’s profiles and the built-in ones hold only what they hold', () => {
    const file = join(tempConfigDir(), 'config.json');
    writeFileSync(file, '{"profiles": {"__proto__": {"project": "a/b"}, "mine": {"output": "json"}}}');
    const { profiles } = readConfigFile(file);
    expect(Object.keys(profiles).sort()).toEqual(['__proto__', 'mine']);
    for (const name of BUILTIN_NAMES) {
      expect(isBuiltinProfile(name), name).toBe(false);
      expect(builtinProfile(name), name).toBeUndefined();
      if (name !== '__proto__') expect(ownValue(profiles, name), name).toBeUndefined();
      expect(ownValue(profiles.mine, name), name).toBeUndefined();
    }
    expect(ownValue(profiles, '__proto__')).toEqual({ project: 'a/b' });
    expect(
      ownValue(readConfigFile(join(tempConfigDir(), 'none.json')).profiles, 'constructor'),
    ).toBeUndefined();
  });
});
