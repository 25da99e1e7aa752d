// aip rollouts on the emulator: the built-in rewards, reward commands that fail, hang or print
// garbage, 429 storms with nothing dropped or sampled twice, --resume after a kill giving the same
// groups as a run never stopped, and bad input refused before any request.

import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { scorerFor } from '../../src/rollouts/built-in-rewards.js';
import { parseReward } from '../../src/rollouts/reward-command.js';
import { useEmulator } from '../helpers/emulator.js';
import { readJsonLines } from '../helpers/json-lines.js';
import { patience } from '../helpers/patience.js';
import { aipEnv, BIN, collect } from '../helpers/spawn.js';

const t = useEmulator();
const { emu, run } = t;
const CHAT = '/training/v1/chat/completions';

type Group = {
  trajectories: Array<{
    reward: number;
    metrics?: Record<string, unknown>;
    metadata: { task_id: string; sample: number };
    messages_and_choices: unknown[];
  }>;
  exceptions?: Array<{ type: string; message: string }>;
  metadata: { task_id: string; rollout_seed: number; rollout_model: string };
};

let tasks: string;
const TASKS = [
  { id: 'add', messages: [{ role: 'user', content: 'Describe a gradient.' }], reference: 'You asked about' },
  {
    messages: [{ role: 'user', content: 'Name a colour.' }],
    reference: 'You asked about',
    metadata: { topic: 'colour' },
  },
  {
    id: 'q3',
    messages: [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Why?' },
    ],
    reference: 'You asked about',
  },
];

beforeEach(async () => {
  await run('models create --name agent --base-model OpenPipe/Qwen3-14B-Instruct -q');
  tasks = join(t.dir, 'tasks.jsonl');
  writeFileSync(tasks, `${TASKS.map((task) => JSON.stringify(task)).join('\n')}\n`);
});

/** An `aip rollouts` command line for the model agent on a tasks file, and the flags given. */
const rollouts = (taskFile: string, ...flags: string[]) => [
  'rollouts',
  '--model',
  'agent',
  '--tasks',
  taskFile,
  ...flags,
];

const groupsOf = (file: string) => readJsonLines<Group>(file);

const byTask = (groups: Group[]) =>
  [...groups].sort((a, b) => a.metadata.task_id.localeCompare(b.metadata.task_id));

async function chatRequests(): Promise<number> {
  return (await emu.requests({ method: 'POST', path: CHAT })).filter((r) => r.status === 200).length;
}

describe('aip rollouts', () => {
  it('samples K replies per task with logprobs, scores them, and writes groups jobs create rl takes', async () => {
    const out = join(t.dir, 'groups.jsonl');
    const r = await run(
      rollouts(tasks, '--reward', 'contains', '-K', '3', '-o', out, '--seed', '11', '--json'),
    );
    expect(r.code).toBe(0);
    const summary = JSON.parse(r.stdout);
    expect(summary).toMatchObject({
      groups_written: 3,
      trajectories: 9,
      failed: 0,
      mean_reward: 1,
      seed: 11,
      tasks: 3,
    });
    const groups = groupsOf(out);
    expect(groups.map((g) => g.metadata.task_id).sort()).toEqual(['2', 'add', 'q3']);
    expect(groups.find((g) => g.metadata.task_id === '2')!.metadata).toMatchObject({
      topic: 'colour',
      rollout_seed: 11,
    });
    for (const group of groups) {
      expect(group.trajectories.map((tr) => tr.metadata.sample)).toEqual([0, 1, 2]);
      for (const trajectory of group.trajectories) {
        expect(trajectory.reward).toBe(1);
        const choice = trajectory.messages_and_choices.at(-1) as {
          logprobs: { content: unknown[] };
          finish_reason: string;
        };
        expect(choice.finish_reason).toBe('stop');
        expect(choice.logprobs.content.length).toBeGreaterThan(0);
      }
    }
    // Each request asked for logprobs on the Training API, with its own seed.
    const sent = await emu.requests({ method: 'POST', path: CHAT });
    expect(sent).toHaveLength(9);
    expect(new Set(sent.map((s) => (s.body as { seed: number }).seed)).size).toBe(9);
    for (const s of sent)
      expect(s.body).toMatchObject({
        logprobs: true,
        temperature: 1,
        model: 'wandb-artifact:///local/demo/agent',
      });
    // What was written is what jobs create rl accepts, checked by the same validator.
    const created = await run(['jobs', 'create', 'rl', '--model', 'agent', '--file', out, '-q']);
    expect([created.code, created.stderr]).toEqual([0, '']);
  });

  it('scores arithmetic on the emulator with each built-in reward, and --trace sends a span per rollout', async () => {
    const math = join(t.dir, 'math.jsonl');
    const question = (n: number) => [
      { role: 'system', content: 'Answer with the number only.' },
      { role: 'user', content: `What is ${n} + ${n}?` },
    ];
    const references: Record<string, (n: number) => unknown> = {
      exact: (n) => String(2 * n),
      contains: (n) => String(2 * n),
      regex: (n) => `^${2 * n}$`,
      'json-match': (n) => 2 * n,
    };
    for (const [reward, reference] of Object.entries(references)) {
      writeFileSync(
        math,
        [11, 23, 35, 47]
          .map((n) => JSON.stringify({ messages: question(n), reference: reference(n) }))
          .join('\n'),
      );
      const out = join(t.dir, `${reward}.jsonl`);
      const flags = ['--reward', reward, '-K', '8', '--seed', '4', '-o', out, '--json'];
      const r = await run(rollouts(math, ...flags, ...(reward === 'exact' ? ['--trace'] : [])));
      expect(r.code, r.stderr).toBe(0);
      // A fresh model's checkpoint (step 0) answers about one in five right: some rewards 1, some 0.
      const rewards = groupsOf(out).flatMap((g) => g.trajectories.map((tr) => tr.reward));
      expect(rewards).toHaveLength(32);
      expect(new Set(rewards)).toEqual(new Set([0, 1]));
      // Each reward is the reply judged the same way: the same seed, the same replies, the same rewards.
      // Tasks without ids are named 1 to 4 by their place; groups come in the order they finished.
      const judged = groupsOf(out).flatMap((g) => {
        const right = String(2 * [11, 23, 35, 47][Number(g.metadata.task_id) - 1]!);
        return g.trajectories.map((tr) => {
          const reply = (tr.messages_and_choices.at(-1) as { message: { content: string } }).message.content;
          return [tr.reward, reply === right ? 1 : 0];
        });
      });
      for (const [given, expected] of judged) expect(given).toBe(expected);
      expect(JSON.parse(r.stdout).mean_reward).toBe(rewards.filter((x) => x === 1).length / 32);
    }
    const spans = (await emu.control('GET', '/spans')).body as { data: Array<{ span: { name: string } }> };
    // A trained model is an agent: each rollout is its turn (invoke_agent agent) around the chat call.
    const names = spans.data.map((d) => d.span.name);
    expect(names.filter((n) => n === 'chat wandb-artifact:///local/demo/agent')).toHaveLength(32);
    expect(names.filter((n) => n === 'invoke_agent agent')).toHaveLength(32);
    expect(names).toHaveLength(64);
  });

  it('scores with each built-in reward', () => {
    const task = (reference: unknown) => ({ id: 't', messages: [], reference });
    expect(scorerFor('exact', task('42'))(' 42\n')).toBe(1);
    expect(scorerFor('exact', task('42'))('The answer is 42.')).toBe(0);
    expect(scorerFor('exact', task(['42', 'forty-two']))('forty-two')).toBe(1);
    expect(scorerFor('contains', task('42'))('The answer is 42.')).toBe(1);
    expect(scorerFor('contains', task('42'))('The answer is 41.')).toBe(0);
    expect(scorerFor('regex', task('answer is (42|forty-two)\\b'))('The answer is 42.')).toBe(1);
    expect(scorerFor('regex', task('^42$'))('The answer is 42.')).toBe(0);
    expect(scorerFor('json-match', task({ a: [1, 2] }))('```json\n{"a": [1, 2]}\n```')).toBe(1);
    expect(scorerFor('json-match', task({ a: [1, 2] }))('{"a": [2, 1]}')).toBe(0);
    expect(scorerFor('json-match', task({ a: 1 }))('not json')).toBe(0);
    expect(() => scorerFor('exact', task(undefined))).toThrow(/task t: --reward exact needs a "reference"/);
    expect(() => scorerFor('regex', task('('))).toThrow(/not a regular expression/);
  });

  it('reads a reward command: a number, {"reward", "metrics"}, and says what is wrong with anything else', () => {
    expect(parseReward('0.25\n')).toEqual({ ok: true, scored: { reward: 0.25 } });
    expect(parseReward('{"reward": 1, "metrics": {"len": 3, "ok": true}}')).toEqual({
      ok: true,
      scored: { reward: 1, metrics: { len: 3, ok: true } },
    });
    expect(parseReward('')).toMatchObject({ ok: false, reason: expect.stringMatching(/printed nothing/) });
    expect(parseReward('great!')).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/printed "great!", not a number/),
    });
    expect(parseReward('{"score": 1}')).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/no numeric "reward"/),
    });
    expect(parseReward('{"reward": 1, "metrics": {"a": "x"}}')).toMatchObject({ ok: false });
  });

  it('marks a trajectory failed when its reward command fails, hangs past its timeout or prints garbage; the rest stand', {
    timeout: patience(120_000),
  }, async () => {
    const script = join(t.dir, 'score.sh');
    // By sample: 0 scores with metrics, 1 fails, 2 hangs (for a minute), 3 prints garbage.
    writeFileSync(
      script,
      `#!/bin/sh
input=$(cat)
case "$input" in
  *'"sample":0'*) echo '{"reward": 0.5, "metrics": {"length": 7}}' ;;
  *'"sample":1'*) echo 'no reference for this one' >&2; exit 3 ;;
  *'"sample":2'*) sleep 60; echo 1 ;;
  *) echo 'looks good to me' ;;
esac
`,
      { mode: 0o755 },
    );
    const out = join(t.dir, 'scored.jsonl');
    const started = Date.now();
    // The timeout applies to every sample's command: a few ms each on a quiet machine, but with 0.5 s a
    // busy one timed out those that answer at once. 3 s leaves them room, and still ends the hung ones.
    const r = await run(
      rollouts(tasks, '--reward-cmd', script, '--reward-timeout', '3', '-K', '4', '-o', out),
    );
    // The hung commands were ended, not waited for: the run is over before the first would have been.
    expect(Date.now() - started).toBeLessThan(60_000);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/Wrote 3 groups \(3 trajectories, 9 failed\) to .*scored\.jsonl/);
    for (const group of groupsOf(out)) {
      expect(group.trajectories).toHaveLength(1);
      expect(group.trajectories[0]).toMatchObject({ reward: 0.5, metrics: { length: 7 } });
      expect(group.exceptions!.map((e) => e.message)).toEqual([
        'sample 1: reward: exit 3: no reference for this one',
        'sample 2: reward: timed out after 3s',
        'sample 3: reward: printed "looks good to me", not a number or {"reward": …}',
      ]);
    }
  });

  it('rides out a 429 storm: every sample made exactly once, none dropped', async () => {
    await emu.fault({ path: CHAT, status: 429, retry_after: '0', probability: 0.5, times: 40 });
    const out = join(t.dir, 'storm.jsonl');
    const r = await run(
      rollouts(tasks, '--reward', 'contains', '-K', '4', '--concurrency', '8', '-o', out, '--seed', '3'),
    );
    expect(r.code).toBe(0);
    const all = await emu.requests({ method: 'POST', path: CHAT });
    expect(all.filter((x) => x.status === 429).length).toBeGreaterThan(5);
    // 12 samples answered, each once: a 429 is asked again, an answer never is.
    expect(await chatRequests()).toBe(12);
    const seeds = all.filter((x) => x.status === 200).map((x) => (x.body as { seed: number }).seed);
    expect(new Set(seeds).size).toBe(12);
    const groups = groupsOf(out);
    expect(groups).toHaveLength(3);
    for (const group of groups)
      expect(group.trajectories.map((tr) => tr.metadata.sample)).toEqual([0, 1, 2, 3]);
  });

  it('stops when only 429s come back for --timeout, keeping what it wrote and saying how to carry on', async () => {
    const out = join(t.dir, 'limited.jsonl');
    await emu.fault({ path: CHAT, status: 429, retry_after: '0', skip: 4, times: 100_000 });
    const r = await run([
      '--timeout',
      '1',
      ...rollouts(tasks, '--reward', 'contains', '-K', '2', '--concurrency', '1', '--seed', '2', '-o', out),
    ]);
    expect(r.code).toBe(6);
    expect(r.stderr).toMatch(
      /^error: the Training API answered only 429 \(too many requests\) for 1s: its limit is not lifting; /,
    );
    // The command to carry on has every flag that shapes the groups.
    expect(r.stderr).toContain(
      `the groups written so far are in ${out}; carry on with: aip rollouts --model agent --tasks ${tasks} --output ${out} --reward contains -K 2 --concurrency 1 --seed 2 --resume\n`,
    );
    expect(groupsOf(out)).toHaveLength(2);
  });

  it('--resume after a kill gives the groups of a run that was never stopped, sampling nothing twice', async () => {
    const many = join(t.dir, 'many.jsonl');
    writeFileSync(
      many,
      Array.from({ length: 12 }, (_, i) =>
        JSON.stringify({
          messages: [{ role: 'user', content: `Task number ${i}?` }],
          reference: 'You asked',
        }),
      ).join('\n'),
    );
    const whole = join(t.dir, 'whole.jsonl');
    const flags = [
      '--model',
      'agent',
      '--tasks',
      many,
      '--reward',
      'contains',
      '-K',
      '2',
      '--concurrency',
      '1',
      '--seed',
      '9',
    ];
    expect((await run(['rollouts', ...flags, '-o', whole])).code).toBe(0);
    await emu.control('DELETE', '/requests');

    // The same run, slowed down and killed once some of its groups are written.
    const cut = join(t.dir, 'cut.jsonl');
    // 400 ms a sample: the kill, once 3 of 12 groups are written, comes seconds before the run could end
    // (on a busy machine, seeing the third line and killing can take a second or more).
    await emu.fault({ path: CHAT, delay_ms: 400, times: 1000 });
    const child = spawn(process.execPath, [BIN, 'rollouts', ...flags, '-o', cut], { env: aipEnv(t.env) });
    const exited = collect(child, patience(120_000));
    const lines = () => (existsSync(cut) ? readFileSync(cut, 'utf8').split('\n').length - 1 : 0);
    while (lines() < 3) await new Promise((resolve) => setTimeout(resolve, 20));
    child.kill('SIGKILL');
    await exited;
    const before = groupsOf(cut).length;
    expect(before).toBeLessThan(12);
    // A kill in the middle of a write leaves an unfinished line: it is cut off on --resume.
    writeFileSync(cut, `${readFileSync(cut, 'utf8')}{"trajectories": [`);
    await emu.control('DELETE', '/faults');
    const sampledBefore = await chatRequests();

    const resumed = await run(['rollouts', ...flags, '-o', cut, '--resume']);
    expect(resumed.code).toBe(0);
    expect(resumed.stderr).toContain(`${cut}: its last line was unfinished`);
    expect(resumed.stderr).toContain(`${before} of 12 tasks done`);
    expect(byTask(groupsOf(cut))).toEqual(byTask(groupsOf(whole)));
    // Only the tasks not written were sampled after the resume.
    expect((await chatRequests()) - sampledBefore).toBe((12 - before) * 2);
  });

  it('checks everything before the groups file is made, emptied or cut; a resume must sample and score as before', async () => {
    const out = join(t.dir, 'kept.jsonl');
    // No reward: refused, and no file made (which would then be refused as existing).
    const noReward = await run(rollouts(tasks, '-o', out));
    expect(noReward.code).toBe(2);
    expect(existsSync(out)).toBe(false);
    expect(
      (await run(rollouts(tasks, '--reward', 'contains', '-K', '2', '-o', out, '--seed', '1'))).code,
    ).toBe(0);
    const written = readFileSync(out, 'utf8');
    // --force with a reward that cannot be computed (a reference that is no regular expression):
    // the file is as it was.
    const unscorable = join(t.dir, 'unscorable.jsonl');
    writeFileSync(unscorable, '{"messages": [{"role": "user", "content": "a"}], "reference": "("}\n');
    const badRegex = await run(rollouts(unscorable, '--reward', 'regex', '-o', out, '--force'));
    expect(badRegex.code).toBe(2);
    // --resume with another temperature or another reward: refused, the file as it was.
    const hotter = await run(
      rollouts(tasks, '--reward', 'contains', '--temperature', '0.5', '-o', out, '--resume'),
    );
    expect([hotter.code, hotter.stderr]).toEqual([
      2,
      `error: ${out} was sampled with the request parameters {"temperature":1}, not {"temperature":0.5}: give the same --temperature, --max-tokens and -o, or --force to start again\n`,
    ]);
    const otherReward = await run(rollouts(tasks, '--reward', 'exact', '-o', out, '--resume'));
    expect([otherReward.code, otherReward.stderr]).toEqual([
      2,
      `error: ${out} was scored with --reward contains, not --reward exact: give the same reward, or --force to start again\n`,
    ]);
    expect(readFileSync(out, 'utf8')).toBe(written);
  });

  it('Ctrl-C ends a pause the server asked for (Retry-After) at once, keeping what was written', async () => {
    const out = join(t.dir, 'paused.jsonl');
    // 60 s: the longest pause aip waits out (MAX_RETRY_AFTER_MS).
    await emu.fault({ path: CHAT, status: 429, retry_after: '60', skip: 2, times: 1 });
    const child = spawn(
      process.execPath,
      [BIN, ...rollouts(tasks, '--reward', 'contains', '-K', '2', '--concurrency', '1', '-o', out)],
      { env: aipEnv(t.env) },
    );
    const exited = collect(child, patience(120_000));
    while ((await emu.requests({ method: 'POST', path: CHAT })).every((r) => r.status !== 429))
      await new Promise((resolve) => setTimeout(resolve, 20));
    child.kill('SIGINT');
    // Killed 30 s after Ctrl-C, while the pause still has most of its minute to run: a run that waited
    // it out fails here (code null) rather than pass late. Counted from the Ctrl-C, not from the start,
    // so that a slow start on a busy machine is no failure.
    const killer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    const r = await exited;
    clearTimeout(killer);
    expect(r.code).toBe(130);
    expect(r.stderr).toMatch(/Stopped after 1 of 3 groups\. Carry on with: aip rollouts .* --resume\n/);
    expect(groupsOf(out)).toHaveLength(1);
  });

  it('refuses bad input before any request: a task problem, a missing reference, an existing file, no reward', async () => {
    const bad = join(t.dir, 'bad.jsonl');
    writeFileSync(
      bad,
      '{"messages": []}\n{"messages": [{"role": "assistant", "content": "hi"}]}\n{"id": "x", "messages": [{"role": "user", "content": "a"}]}\n{"id": "x", "messages": [{"role": "user", "content": "b"}]}\n',
    );
    const r = await run(rollouts(bad, '--reward', 'exact'));
    expect(r.code).toBe(2);
    expect(r.stderr.split('\n')).toEqual([
      `${bad}:1: messages: List should have at least 1 item after validation, not 0`,
      `${bad}:2: messages[0].role: the last message is the assistant's: a task ends with the turn the model is to answer`,
      `${bad}:4: id: task id "x" is also task 3's: ids must be unique`,
      `error: ${bad}: 3 problems in 4 tasks; nothing was sampled`,
      '',
    ]);
    const noReference = join(t.dir, 'no-reference.jsonl');
    writeFileSync(noReference, '{"messages": [{"role": "user", "content": "a"}]}\n');
    const missing = await run(rollouts(noReference, '--reward', 'exact'));
    expect([missing.code, missing.stderr]).toEqual([
      2,
      'error: task 1: --reward exact needs a "reference" that is a string or a list of strings\n',
    ]);
    const noReward = await run(rollouts(tasks));
    expect(noReward.code).toBe(2);
    expect(noReward.stderr).toMatch(
      /a reward is needed: --reward exact\|contains\|regex\|json-match, or --reward-cmd COMMAND/,
    );
    const existing = join(t.dir, 'existing.jsonl');
    writeFileSync(existing, '');
    const exists = await run(rollouts(tasks, '--reward', 'contains', '-o', existing));
    expect([exists.code, exists.stderr]).toEqual([
      2,
      `error: ${existing} exists: --resume continues it, --force starts it again\n`,
    ]);
    const notTrained = await run([
      'rollouts',
      '--model',
      'openai/gpt-oss-20b',
      '--tasks',
      tasks,
      '--reward',
      'contains',
    ]);
    expect(notTrained.code).toBe(2);
    expect(await emu.requests({ method: 'POST', path: CHAT })).toHaveLength(0);
  });
});
