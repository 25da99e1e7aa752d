// --shard I/N on the emulator: three shards sampled with the same seed and merged are the file an
// unsharded run writes (its groups in the tasks file's order: an unsharded run writes them as they
// complete); merge refuses shards sampled otherwise, a task twice, a missing shard and a file that is
// not a groups file; a sharded run without --seed is refused; eval --shard samples a shard's tasks as
// the unsharded eval samples them.

import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { useEmulator } from '../helpers/emulator.js';
import { writeArithmeticTasks } from '../helpers/tasks.js';

const t = useEmulator();
const { emu, run } = t;
const CHAT = '/training/v1/chat/completions';
const TASKS = 12;

let tasks: string;
beforeEach(async () => {
  await run('models create --name agent --base-model OpenPipe/Qwen3-14B-Instruct -q');
  tasks = writeArithmeticTasks(join(t.dir, 'tasks.jsonl'), TASKS);
});

const file = (name: string) => join(t.dir, name);
const lines = (path: string) => readFileSync(path, 'utf8').split('\n').filter(Boolean);
const taskOf = (line: string) => (JSON.parse(line) as { metadata: { task_id: string } }).metadata.task_id;
const ids = Array.from({ length: TASKS }, (_, i) => `sum-${i}`);

/** The command line of rollouts on the tasks, K 2, the reward exact, written to `out`, with `flags`. */
const rolloutsArgv = (out: string, ...flags: string[]) => [
  'rollouts',
  '--model',
  'agent',
  '--tasks',
  tasks,
  '--reward',
  'exact',
  '-K',
  '2',
  '-o',
  out,
  ...flags,
];

/** rollouts as rolloutsArgv says; exit 0. */
async function rollouts(out: string, ...flags: string[]) {
  const r = await run(rolloutsArgv(out, ...flags));
  expect([r.code, r.stderr]).toEqual([0, expect.any(String)]);
  return r;
}

/** The three shards of seed 5 (and, where asked, other flags for one of them). */
async function shards(seed = '5'): Promise<string[]> {
  const files = [1, 2, 3].map((i) => file(`shard-${i}.jsonl`));
  for (const [i, out] of files.entries()) await rollouts(out, '--seed', seed, '--shard', `${i + 1}/3`);
  return files;
}

describe('aip rollouts --shard and aip rollouts merge', () => {
  it('three shards with the same seed, merged, are the unsharded file in the tasks order', async () => {
    const whole = file('whole.jsonl');
    await rollouts(whole, '--seed', '5', '--concurrency', '8');
    const files = await shards();
    // Each shard holds its tasks only, none of them twice, and together every task.
    const held = files.map((f) => lines(f).map(taskOf));
    expect(held.flat().sort()).toEqual([...ids].sort());
    expect(held.every((h) => h.length > 0 && h.length < TASKS)).toBe(true);

    // Given in any order, merged: the unsharded run's groups, line for line, in the tasks order.
    const merged = file('merged.jsonl');
    const r = await run([
      'rollouts',
      'merge',
      files[2]!,
      files[0]!,
      files[1]!,
      '--tasks',
      tasks,
      '-o',
      merged,
      '--json',
    ]);
    expect([r.code, r.stderr]).toEqual([0, expect.stringContaining(`Merged ${TASKS} groups from 3 files`)]);
    expect(JSON.parse(r.stdout)).toMatchObject({ groups: TASKS, files: 3, seed: 5, tasks: TASKS });
    const canonical = [...lines(whole)].sort((a, b) => ids.indexOf(taskOf(a)) - ids.indexOf(taskOf(b)));
    expect(lines(merged).map(taskOf)).toEqual(ids);
    expect(readFileSync(merged, 'utf8')).toBe(`${canonical.join('\n')}\n`);

    // The merged file is what jobs create rl takes.
    const valid = await run(['jobs', 'validate', 'rl', merged]);
    expect([valid.code, valid.stderr]).toEqual([0, expect.any(String)]);
    // And is not replaced without --force.
    const again = await run(['rollouts', 'merge', ...files, '--tasks', tasks, '-o', merged]);
    expect([again.code, again.stderr]).toEqual([
      2,
      expect.stringContaining(`${merged} exists: --force replaces it`),
    ]);
    expect((await run(['rollouts', 'merge', ...files, '--tasks', tasks, '-o', merged, '--force'])).code).toBe(
      0,
    );
  });

  it('merge refuses shards sampled otherwise, a task twice, a shard missing, a file not a groups file', async () => {
    const files = await shards();
    const otherSeed = file('other-seed.jsonl');
    await rollouts(otherSeed, '--seed', '6', '--shard', '2/3');
    const otherModel = file('other-model.jsonl');
    await run('models create --name other --base-model OpenPipe/Qwen3-14B-Instruct -q');
    const r0 = await run([
      'rollouts',
      '--model',
      'other',
      '--tasks',
      tasks,
      '--reward',
      'exact',
      '-K',
      '2',
      '-o',
      otherModel,
      '--seed',
      '5',
      '--shard',
      '2/3',
    ]);
    expect(r0.code).toBe(0);
    const notGroups = file('not-groups.jsonl');
    writeFileSync(notGroups, `${lines(tasks).join('\n')}\n`);
    const merged = file('merged.jsonl');
    const merge = (...given: string[]) =>
      run(['rollouts', 'merge', ...given, '--tasks', tasks, '-o', merged]);
    const cases: Array<[string[], RegExp]> = [
      [
        [files[0]!, otherSeed, files[2]!],
        /other-seed\.jsonl:1 was sampled with --seed 6, not 5 \(as .*shard-1\.jsonl:1 was\)/,
      ],
      [
        [files[0]!, otherModel, files[2]!],
        /other-model\.jsonl:1 was sampled with the model wandb-artifact:\/\/\/local\/demo\/other, not/,
      ],
      [
        [files[0]!, files[1]!, files[2]!, files[1]!],
        /task sum-\d+ is in .*shard-2\.jsonl:1 and in .*shard-2\.jsonl:1/,
      ],
      [
        [files[0]!, files[2]!],
        /\d+ of the 12 tasks of .*tasks\.jsonl (is|are) in none of the files \(sum-.*\): is a shard missing/,
      ],
      [[files[0]!, notGroups], /not-groups\.jsonl:1: a group without aip's metadata/],
    ];
    for (const [given, message] of cases) {
      const r = await merge(...given);
      expect([r.code, r.stderr]).toEqual([2, expect.stringMatching(message)]);
      expect(existsSync(merged)).toBe(false);
    }
    // A shard stopped part-way (its last line unfinished) is refused too.
    writeFileSync(files[1]!, readFileSync(files[1]!, 'utf8').slice(0, -10));
    const cut = await merge(...files);
    expect([cut.code, cut.stderr]).toEqual([
      2,
      expect.stringMatching(/shard-2\.jsonl:\d+: an unfinished last line/),
    ]);
    expect(existsSync(merged)).toBe(false);
  });

  it('a sharded run without --seed is refused before any request; a bad --shard is a usage error', async () => {
    const out = file('s.jsonl');
    const r = await run([
      'rollouts',
      '--model',
      'agent',
      '--tasks',
      tasks,
      '--reward',
      'exact',
      '-o',
      out,
      '--shard',
      '1/3',
    ]);
    expect([r.code, r.stderr]).toEqual([2, expect.stringContaining('--shard 1/3 needs --seed')]);
    const zero = await run([
      'rollouts',
      '--model',
      'agent',
      '--tasks',
      tasks,
      '--reward',
      'exact',
      '--seed',
      '1',
      '--shard',
      '0/3',
    ]);
    expect([zero.code, zero.stderr]).toEqual([2, expect.stringContaining('shards are numbered from 1 to 3')]);
    expect(existsSync(out)).toBe(false);
    expect(await emu.requests({ method: 'POST', path: CHAT })).toEqual([]);
  });

  it('an empty shard writes an empty file that merge takes; resume keeps the shard, and refuses another', async () => {
    // Of 12 shards of these tasks, shard 3 holds none (the split is by a hash of the id).
    const empty = file('empty.jsonl');
    const r = await rollouts(empty, '--seed', '5', '--shard', '3/12');
    expect(r.stderr).toContain('shard 3/12 holds none of the 12 tasks');
    expect(readFileSync(empty, 'utf8')).toBe('');
    const files = await shards();
    const merged = file('merged.jsonl');
    const m = await run(['rollouts', 'merge', ...files, empty, '--tasks', tasks, '-o', merged]);
    expect([m.code, m.stderr]).toEqual([0, expect.any(String)]);
    expect(lines(merged).map(taskOf)).toEqual(ids);
    // A shard's file resumed as another shard is refused: its groups are not that shard's tasks.
    const wrong = await run(rolloutsArgv(files[0]!, '--seed', '5', '--shard', '2/3', '--resume'));
    expect([wrong.code, wrong.stderr]).toEqual([
      2,
      expect.stringMatching(/shard-1\.jsonl holds the group of task sum-\d+, which is not in shard 2\/3/),
    ]);
    // Resumed as its own shard, without --seed (the file has it): nothing left to sample.
    const before = (await emu.requests({ method: 'POST', path: CHAT })).length;
    const same = await run(rolloutsArgv(files[0]!, '--shard', '1/3', '--resume'));
    expect([same.code, same.stderr]).toEqual([0, expect.any(String)]);
    expect((await emu.requests({ method: 'POST', path: CHAT })).length).toBe(before);
  });

  it('a stopped shard says how to carry it on, --shard included', async () => {
    await emu.fault({ path: CHAT, status: 500, times: 1000 });
    const out = file('s.jsonl');
    const r = await run([
      '--max-retries',
      '0',
      'rollouts',
      '--model',
      'agent',
      '--tasks',
      tasks,
      '--reward',
      'exact',
      '-o',
      out,
      '--seed',
      '5',
      '--shard',
      '2/3',
    ]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/carry on with: .*--shard 2\/3 --seed 5 --resume/);
  });
});

describe('aip eval --shard', () => {
  it("samples a shard's tasks as the unsharded eval samples them, and reports them", async () => {
    const evalArgs = ['eval', '--model', 'agent', '--tasks', tasks, '--reward', 'exact', '-K', '2', '--json'];
    const whole = await run(evalArgs);
    expect([whole.code, whole.stderr]).toEqual([expect.any(Number), expect.any(String)]);
    const wholeSent = await emu.requests({ method: 'POST', path: CHAT });
    await emu.reset();
    await run('models create --name agent --base-model OpenPipe/Qwen3-14B-Instruct -q');
    const r = await run([...evalArgs, '--shard', '1/3']);
    expect(r.stderr).toContain(`(shard 1/3 of ${TASKS})`);
    const doc = JSON.parse(r.stdout) as {
      shard: string;
      shard_tasks: number;
      tasks_in_file: number;
      checkpoints: Array<{ samples: number; failed: number }>;
    };
    expect(doc).toMatchObject({ shard: '1/3', tasks_in_file: TASKS });
    expect(doc.shard_tasks).toBeGreaterThan(0);
    expect(doc.shard_tasks).toBeLessThan(TASKS);
    expect(doc.checkpoints[0]!.samples + doc.checkpoints[0]!.failed).toBe(doc.shard_tasks * 2);
    // Its requests are the unsharded eval's requests of its tasks: the same seeds, the same messages.
    const key = (s: { body: unknown }) => {
      const body = s.body as { seed: number; messages: unknown };
      return JSON.stringify([body.seed, body.messages]);
    };
    const sent = (await emu.requests({ method: 'POST', path: CHAT })).map(key);
    expect(sent).toHaveLength(doc.shard_tasks * 2);
    const all = new Set(wholeSent.map(key));
    expect(sent.filter((s) => !all.has(s))).toEqual([]);
    // An empty shard has nothing to evaluate: said, exit 1.
    const empty = await run([...evalArgs, '--shard', '3/12']);
    expect([empty.code, empty.stderr]).toEqual([
      1,
      expect.stringContaining('shard 3/12 holds none of the 12 tasks'),
    ]);
  });
});
