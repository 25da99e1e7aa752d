// The split of --shard I/N (src/rollouts/shard.ts) and its parser: every task in exactly one shard
// whatever N, the same split on every machine and run, stable when tasks are added, roughly balanced;
// and the merge of the shards' groups files (src/rollouts/merge.ts), pure, on text.

import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseShard } from '../../src/commands/parsers.js';
import { mergeShards } from '../../src/rollouts/merge.js';
import { describeShard, shardOfTask, tasksOfShard } from '../../src/rollouts/shard.js';

const tasksNamed = (ids: string[]) => ids.map((id) => ({ id }));
const sums = (count: number) => tasksNamed(Array.from({ length: count }, (_, i) => `sum-${i}`));

describe('the split of --shard I/N', () => {
  it('puts every task in exactly one shard, for many N', () => {
    const tasks = sums(500);
    for (const count of [1, 2, 3, 4, 7, 10, 16, 100, 499, 500, 501, 10_000]) {
      // Each shard's tasks, as each machine takes them (for the first 20 shards: the rest by index).
      const shards = Array.from(
        { length: Math.min(count, 20) },
        (_, i) => new Set(tasksOfShard(tasks, { index: i + 1, count }).map((t) => t.id)),
      );
      const wrong: string[] = [];
      for (const task of tasks) {
        const index = shardOfTask(task.id, count);
        if (!(index >= 1 && index <= count && Number.isInteger(index))) wrong.push(`${task.id}: ${index}`);
        // In the shard of that index, and in no other.
        for (const [i, shard] of shards.entries())
          if (shard.has(task.id) !== (i + 1 === index))
            wrong.push(`${task.id} in shard ${i + 1} of ${count}`);
      }
      expect(wrong).toEqual([]);
      if (count <= 20) expect(shards.reduce((n, shard) => n + shard.size, 0)).toBe(tasks.length);
    }
  });

  it('holds for any ids (unicode, empty, long) and any N', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.string({ unit: 'grapheme' }), { maxLength: 40 }),
        fc.integer({ min: 1, max: 10_000 }),
        (ids, count) => {
          const tasks = tasksNamed(ids);
          const seen = new Map<string, number>();
          for (const t of tasks) seen.set(t.id, shardOfTask(t.id, count));
          const fromShards = new Set<number>();
          for (let index = 1; index <= Math.min(count, 50); index++)
            for (const t of tasksOfShard(tasks, { index, count })) {
              expect(seen.get(t.id)).toBe(index);
              fromShards.add(index);
            }
          for (const index of seen.values()) expect(index >= 1 && index <= count).toBe(true);
        },
      ),
    );
  });

  it('is deterministic: pinned values, the same on every machine and run', () => {
    // SHA-256 of the id's UTF-8, its first 48 bits big-endian, mod N, plus 1: pinned, so that a change
    // of the hash (which would split a resumed or half-run matrix differently) fails here.
    expect([
      shardOfTask('sum-0', 3),
      shardOfTask('sum-1', 3),
      shardOfTask('add', 4),
      shardOfTask('', 7),
    ]).toEqual([2, 3, 3, 2]);
    const expected = (id: string, count: number) =>
      (Number.parseInt(createHash('sha256').update(id, 'utf8').digest('hex').slice(0, 12), 16) % count) + 1;
    for (const id of ['sum-0', 'add', 'é', '名前', ''])
      for (const count of [1, 2, 3, 10, 9973])
        expect([id, count, shardOfTask(id, count)]).toEqual([id, count, expected(id, count)]);
  });

  it('is stable when tasks are added: a task stays in its shard', () => {
    const before = sums(200);
    const after = [...tasksNamed(['new-a', 'new-b']), ...before, ...sums(300).slice(200)];
    for (const count of [3, 8]) {
      for (let index = 1; index <= count; index++) {
        const was = tasksOfShard(before, { index, count }).map((t) => t.id);
        const now = new Set(tasksOfShard(after, { index, count }).map((t) => t.id));
        expect(was.filter((id) => !now.has(id))).toEqual([]);
      }
    }
  });

  it('is roughly balanced', () => {
    const tasks = sums(4000);
    for (const count of [2, 3, 10, 50]) {
      const sizes = Array<number>(count).fill(0);
      for (const task of tasks) sizes[shardOfTask(task.id, count) - 1]!++;
      const mean = tasks.length / count;
      // A binomial's spread is sqrt(n p (1-p)) ≤ 32 here: 5 of those is far past chance.
      for (const size of sizes) expect(Math.abs(size - mean)).toBeLessThan(160);
    }
  });

  it('keeps the tasks file order within a shard', () => {
    const tasks = sums(100);
    const shard = tasksOfShard(tasks, { index: 2, count: 3 });
    expect(shard.map((t) => t.id)).toEqual(tasks.filter((t) => shard.includes(t)).map((t) => t.id));
    expect(describeShard({ index: 2, count: 3 })).toBe('2/3');
  });
});

describe('--shard I/N, as parsed', () => {
  it('takes I of N, numbered from 1', () => {
    expect(parseShard('1/3')).toEqual({ index: 1, count: 3 });
    expect(parseShard(' 3 / 3 ')).toEqual({ index: 3, count: 3 });
    expect(parseShard('1/1')).toEqual({ index: 1, count: 1 });
    expect(parseShard('10000/10000')).toEqual({ index: 10_000, count: 10_000 });
  });

  it('refuses a 0-based index with the way to write it, and anything else', () => {
    expect(() => parseShard('0/3')).toThrow(/numbered from 1 to 3.*\$\(\(INDEX \+ 1\)\)\/3/);
    expect(() => parseShard('4/3')).toThrow(/no shard 4 of 3/);
    expect(() => parseShard('1/0')).toThrow(/from 1 to 10000/);
    expect(() => parseShard('1/10001')).toThrow(/from 1 to 10000/);
    for (const bad of ['', '1', '1/', '/3', '-1/3', '1.5/3', 'a/b', '1/3/4', '1:3'])
      expect(() => parseShard(bad), bad).toThrow(/expected I\/N/);
  });
});

/** A group line as aip rollouts writes it. */
function group(task: string, over: Record<string, unknown> = {}, samples = 2): string {
  return JSON.stringify({
    trajectories: Array.from({ length: samples }, (_, sample) => ({
      messages_and_choices: [],
      reward: 1,
      metadata: { task_id: task, sample },
    })),
    metadata: {
      task_id: task,
      rollout_seed: 7,
      rollout_model: 'wandb-artifact:///local/demo/agent',
      rollout_params: { temperature: 1, max_tokens: 5 },
      rollout_reward: '--reward exact',
      ...over,
    },
  });
}
const file = (path: string, ...lines: string[]) => ({ path, text: lines.map((l) => `${l}\n`).join('') });

describe('mergeShards', () => {
  const ids = ['a', 'b', 'c', 'd'];

  it('writes the groups in the tasks order, whatever the files and their order', () => {
    const merged = mergeShards(
      [file('s2', group('d'), group('b')), file('s3'), file('s1', group('c'), group('a'))],
      ids,
      'tasks.jsonl',
    );
    expect(merged.text).toBe(ids.map((id) => `${group(id)}\n`).join(''));
    expect(merged).toMatchObject({ groups: 4, seed: 7, model: 'wandb-artifact:///local/demo/agent' });
  });

  it('takes the request parameters in any order, as --resume does', () => {
    const swapped = group('b', { rollout_params: { max_tokens: 5, temperature: 1 } });
    expect(mergeShards([file('s1', group('a')), file('s2', swapped)], ['a', 'b'], 't').groups).toBe(2);
  });

  it('refuses groups sampled otherwise, naming both places', () => {
    const cases: Array<[string, RegExp]> = [
      [group('b', { rollout_seed: 8 }), /s2:1 was sampled with --seed 8, not 7 \(as s1:1 was\)/],
      [group('b', { rollout_model: 'wandb-artifact:///local/demo/other' }), /the model .*other, not/],
      [group('b', { rollout_params: { temperature: 0.5 } }), /the request parameters/],
      [group('b', { rollout_reward: '--reward contains' }), /the reward --reward contains/],
      [group('b', {}, 3), /groups of 3 samples, not 2/],
    ];
    for (const [line, message] of cases)
      expect(() => mergeShards([file('s1', group('a')), file('s2', line)], ['a', 'b'], 't')).toThrow(message);
  });

  it('refuses a task twice, a task not in the tasks file, a task in none', () => {
    expect(() =>
      mergeShards([file('s1', group('a'), group('b')), file('s2', group('b'))], ['a', 'b'], 't'),
    ).toThrow(/task b is in s1:2 and in s2:1/);
    expect(() => mergeShards([file('s1', group('a'), group('x'))], ['a'], 'tasks.jsonl')).toThrow(
      /s1:2: task x is not in tasks.jsonl/,
    );
    expect(() => mergeShards([file('s1', group('a'))], ids, 'tasks.jsonl')).toThrow(
      /3 of the 4 tasks of tasks.jsonl are in none of the files \(b, c, d\): is a shard missing/,
    );
  });

  it('refuses what is not a whole groups file of aip rollouts', () => {
    const merge = (text: string) => () => mergeShards([{ path: 'f', text }], ['a'], 't');
    expect(merge(`${group('a')}`)).toThrow(/f:1: an unfinished last line/);
    expect(merge('{"messages": []}\n')).toThrow(/f:1: a group without aip's metadata/);
    expect(merge('not json\n')).toThrow(/f:1: not a JSON line/);
    expect(merge('[1]\n')).toThrow(/f:1: not a trajectory group/);
    expect(merge('')).toThrow(/1 of the 1 tasks of t is in none/);
  });
});
