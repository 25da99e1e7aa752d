// --reward judge:MODEL (issue 30): a model of the Inference API scores the replies of rollouts, eval,
// reward test and train rl, by a rubric, with structured output. On the emulator, which answers a
// json_schema request with an instance of the schema: what aip asks (the rubric, the task, the reply
// or the group's replies, the schema), what it keeps (the score as the reward and a metric, the
// judge's words in the metadata), how an answer that is not a judgement fails only its trajectory,
// and how a judge that cannot answer stops the run before samples are spent for nothing.

import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { useEmulator } from '../helpers/emulator.js';
import { readJsonLines } from '../helpers/json-lines.js';
import { writeArithmeticTasks } from '../helpers/tasks.js';

const t = useEmulator();
const { emu, run } = t;

const JUDGE = 'openai/gpt-oss-120b';
const JUDGE_CHAT = '/inference/v1/chat/completions';
const SAMPLE_CHAT = '/training/v1/chat/completions';
const RUBRIC = 'Score 1 when the sum is right, 0 otherwise. The sum is checked digit by digit.';

interface Trajectory {
  reward: number;
  metrics?: Record<string, unknown>;
  metadata: { task_id: string; sample: number; judgement?: string };
  messages_and_choices: Array<{ message?: { content: string } }>;
}
interface Group {
  trajectories: Trajectory[];
  exceptions?: Array<{ message: string }>;
  metadata: { rollout_reward: string };
}
// biome-ignore lint/suspicious/noExplicitAny: request bodies, read field by field
type Body = any;

const groupsOf = (file: string) => readJsonLines<Group>(file);
/** Chat requests, sampled or judged: none may go out for flags that are refused. */
const chats = async () => [
  ...(await emu.requests({ path: SAMPLE_CHAT })),
  ...(await emu.requests({ path: JUDGE_CHAT })),
];
const judgeRequests = async () =>
  (await emu.requests({ method: 'POST', path: JUDGE_CHAT })).map((r) => r.body as Body);

let tasks: string;
let rubric: string;
beforeEach(async () => {
  await run('models create --name agent --base-model OpenPipe/Qwen3-14B-Instruct -q');
  tasks = writeArithmeticTasks(join(t.dir, 'tasks.jsonl'), 2);
  rubric = join(t.dir, 'rubric.md');
  writeFileSync(rubric, `${RUBRIC}\n`);
});

const rollouts = (...more: string[]) => [
  'rollouts',
  '--model',
  'agent',
  '--tasks',
  tasks,
  '--reward',
  `judge:${JUDGE}`,
  '--seed',
  '7',
  ...more,
];

/** The score and words of a judgement kept in a trajectory, which must be its reward. */
function expectJudged(tr: Trajectory) {
  expect(tr.reward).toBeGreaterThanOrEqual(0);
  expect(tr.reward).toBeLessThanOrEqual(1);
  expect(tr.metrics).toEqual({ judge_score: tr.reward });
  const judgement = JSON.parse(tr.metadata.judgement!);
  expect(judgement).toEqual({ explanation: expect.any(String), score: tr.reward });
}

describe('a judge of each reply', () => {
  it('asks by the rubric with a JSON schema, and keeps the score and the words', async () => {
    const out = join(t.dir, 'groups.jsonl');
    const r = await run(rollouts('-K', '2', '--rubric', rubric, '-o', out));
    expect([r.code, r.stderr]).toEqual([0, expect.stringMatching(/Wrote 2 groups \(4 trajectories\)/)]);

    const groups = groupsOf(out);
    const sha = createHash('sha256').update(`${RUBRIC}\n`).digest('hex').slice(0, 12);
    for (const group of groups) {
      expect(group.exceptions).toBeUndefined();
      expect(group.metadata.rollout_reward).toBe(`--reward judge:${JUDGE} --rubric sha256:${sha}`);
      for (const tr of group.trajectories) expectJudged(tr);
    }

    // One request per reply: the rubric in the instructions, the task, its reference and the reply.
    const asked = await judgeRequests();
    expect(asked).toHaveLength(4);
    const replies = new Map(
      groups.flatMap((g) =>
        g.trajectories.map((tr) => [
          `${tr.metadata.task_id}/${tr.metadata.sample}`,
          tr.messages_and_choices.at(-1)!.message!.content,
        ]),
      ),
    );
    const seen = new Set<string>();
    for (const body of asked) {
      expect(body.model).toBe(JUDGE);
      expect(body.temperature).toBe(0);
      expect(body.response_format).toMatchObject({
        type: 'json_schema',
        json_schema: { name: 'judgement', strict: true, schema: { required: ['explanation', 'score'] } },
      });
      expect(body.messages[0]).toMatchObject({ role: 'system', content: expect.stringContaining(RUBRIC) });
      const shown = JSON.parse(body.messages[1].content);
      const task = readJsonLines<{ id: string; messages: unknown; reference: string }>(tasks).find(
        (task) => task.reference === shown.reference,
      )!;
      expect(shown.task).toEqual(task.messages);
      const reply = shown.reply.content;
      const key = [...replies].find(([k, v]) => k.startsWith(`${task.id}/`) && v === reply)?.[0];
      expect(key).toBeDefined();
      seen.add(`${key}:${reply}`);
    }
    // The emulator's model answered on the Inference API alone: no judge request went to training.
    expect(await emu.requests({ method: 'POST', path: SAMPLE_CHAT })).toHaveLength(4);
    expect(await emu.requests({ method: 'GET', path: '/inference/v1/models' })).toHaveLength(1);
  });

  it('asks the same again for the same seed, so a rerun scores alike', async () => {
    const [a, b] = [join(t.dir, 'a.jsonl'), join(t.dir, 'b.jsonl')];
    expect((await run(rollouts('-K', '2', '-o', a))).code).toBe(0);
    expect((await run(rollouts('-K', '2', '-o', b))).code).toBe(0);
    const rewards = (file: string) => groupsOf(file).flatMap((g) => g.trajectories.map((tr) => tr.reward));
    expect(rewards(b)).toEqual(rewards(a));
    const seeds = (await judgeRequests()).map((body) => body.seed);
    expect(seeds.slice(4).sort()).toEqual(seeds.slice(0, 4).sort());
    // Each reply its own seed: the default rubric is used without --rubric.
    expect(new Set(seeds.slice(0, 4)).size).toBe(4);
    expect((await judgeRequests())[0].messages[0].content).toContain('reference answer');
  });

  it('scores eval samples too', async () => {
    const r = await run([
      'eval',
      '--model',
      'agent:step0',
      '--tasks',
      tasks,
      '--reward',
      `judge:${JUDGE}`,
      '-K',
      '2',
      '--json',
    ]);
    expect([r.code, r.stderr]).toEqual([0, expect.not.stringContaining('internal')]);
    expect(await judgeRequests()).toHaveLength(4);
    expect(JSON.parse(r.stdout).checkpoints).toEqual([expect.objectContaining({ samples: 4, failed: 0 })]);
  });
});

describe('a judge of each group (--judge-group)', () => {
  it('scores a group in one request, a key per member, each trajectory keeping its own judgement', async () => {
    const out = join(t.dir, 'groups.jsonl');
    const r = await run(rollouts('-K', '3', '--judge-group', '-o', out));
    expect([r.code, r.stderr]).toEqual([0, expect.stringMatching(/Wrote 2 groups \(6 trajectories\)/)]);
    const asked = await judgeRequests();
    expect(asked).toHaveLength(2);
    for (const body of asked) {
      const { json_schema } = body.response_format;
      expect(json_schema.name).toBe('group_judgement');
      expect(json_schema.schema.required).toEqual(['reply_1', 'reply_2', 'reply_3']);
      expect(json_schema.schema.additionalProperties).toBe(false);
      const shown = JSON.parse(body.messages[1].content);
      expect(Object.keys(shown.replies)).toEqual(['reply_1', 'reply_2', 'reply_3']);
      expect(body.messages[0].content).toContain('comparing them with each other');
    }
    for (const group of groupsOf(out)) {
      expect(group.metadata.rollout_reward).toBe(`--reward judge:${JUDGE} --judge-group`);
      expect(group.trajectories.map((tr) => tr.metadata.sample)).toEqual([0, 1, 2]);
      for (const tr of group.trajectories) expectJudged(tr);
    }
  });

  it('judges only the members that were sampled; a failed sample stays failed', async () => {
    // The second sample of the run fails: its answer has no choice.
    await emu.fault({
      path: SAMPLE_CHAT,
      status: 200,
      body: { id: 'x', object: 'chat.completion', choices: [] },
      skip: 1,
      times: 1,
    });
    const out = join(t.dir, 'groups.jsonl');
    const r = await run(rollouts('-K', '3', '--judge-group', '--concurrency', '1', '-o', out));
    expect(r.code).toBe(0);
    const [first] = groupsOf(out);
    expect(first!.trajectories).toHaveLength(2);
    expect(first!.exceptions).toEqual([
      expect.objectContaining({ message: expect.stringMatching(/^sample 1: /) }),
    ]);
    const [body] = await judgeRequests();
    expect(body.response_format.json_schema.schema.required).toEqual(['reply_1', 'reply_2']);
  });

  it('tests a reward on given replies, a call per group', async () => {
    const replies = join(t.dir, 'replies.jsonl');
    writeFileSync(
      replies,
      `${JSON.stringify({ task_id: 'sum-0', replies: ['34', '35', '34'] })}\n${JSON.stringify({ task_id: 'sum-1', replies: ['46', '47'] })}\n`,
    );
    const r = await run([
      'reward',
      'test',
      '--tasks',
      tasks,
      '--replies',
      replies,
      '--reward',
      `judge:${JUDGE}`,
      '--judge-group',
      '--json',
    ]);
    expect([r.code, r.stderr]).toEqual([0, expect.not.stringContaining('internal')]);
    const report = JSON.parse(r.stdout);
    expect(report).toMatchObject({ mode: 'replies', samples: 5, scored: 5, failed: 0 });
    expect(report.timing.calls).toBe(2);
    const asked = await judgeRequests();
    expect(asked.map((b) => Object.keys(JSON.parse(b.messages[1].content).replies).length).sort()).toEqual([
      2, 3,
    ]);
  });
});

/** A chat completion the judge's fault answers with: `message` as given, finish_reason as given. */
const completion = (message: Record<string, unknown>, finish_reason = 'stop') => ({
  id: 'chatcmpl-fault',
  object: 'chat.completion',
  created: 1,
  model: JUDGE,
  choices: [{ index: 0, message: { role: 'assistant', ...message }, finish_reason, logprobs: null }],
  usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
});

describe('an answer that is not a judgement', () => {
  const cases: Array<[string, unknown, RegExp]> = [
    [
      'prose',
      completion({ content: 'The reply is right: 1.' }),
      /answered "The reply is right: 1\.", not the JSON/,
    ],
    [
      'a score past 1',
      completion({ content: '{"explanation": "x", "score": 1.5}' }),
      /score is 1\.5, outside 0 to 1/,
    ],
    [
      'a score as text',
      completion({ content: '{"explanation": "x", "score": "high"}' }),
      /score is "high", not a number/,
    ],
    ['no score', completion({ content: '{"explanation": "x", "__proto__": {"score": 1}}' }), /has no score/],
    [
      'a score JSON cannot hold',
      completion({ content: '{"explanation": "x", "score": 1e999}' }),
      /not a number/,
    ],
    [
      'a refusal',
      completion({ content: null, refusal: 'I cannot judge this.' }),
      /judge refused: "I cannot judge this\."/,
    ],
    ['an answer cut short', completion({ content: '{"explanation": "x", "sc' }, 'length'), /cut off/],
  ];
  it.each(cases)('%s fails that trajectory with the reason; the run goes on', async (_, body, reason) => {
    await emu.fault({ path: JUDGE_CHAT, status: 200, body, times: 1 });
    const out = join(t.dir, 'groups.jsonl');
    const r = await run(rollouts('-K', '2', '--concurrency', '1', '-o', out));
    expect([r.code, r.stderr]).toEqual([
      0,
      expect.stringMatching(/Wrote 2 groups \(3 trajectories, 1 failed\)/),
    ]);
    const failed = groupsOf(out).flatMap((g) => g.exceptions ?? []);
    expect(failed).toEqual([
      { type: 'RolloutError', message: expect.stringMatching(/^sample 0: reward: /), traceback: '' },
    ]);
    expect(failed[0]!.message).toMatch(reason);
  });

  it('in a group judgement, a member left out fails alone', async () => {
    const content = JSON.stringify({
      reply_1: { explanation: 'ok', score: 0.5 },
      reply_3: { explanation: 'x', score: 1 },
    });
    await emu.fault({ path: JUDGE_CHAT, status: 200, body: completion({ content }), times: 1 });
    const out = join(t.dir, 'groups.jsonl');
    const r = await run(rollouts('-K', '2', '--judge-group', '--concurrency', '1', '-o', out));
    expect(r.code).toBe(0);
    const [first] = groupsOf(out);
    expect(first!.trajectories.map((tr) => [tr.metadata.sample, tr.reward])).toEqual([[0, 0.5]]);
    expect(first!.exceptions![0]!.message).toMatch(
      /^sample 1: reward: the judge's answer has no score for reply_2$/,
    );
  });

  it('an answer past the size limit fails its trajectory; a long one is kept cut at 16 KiB', async () => {
    const huge = JSON.stringify({ explanation: 'x'.repeat(3 << 20), score: 1 });
    await emu.fault({ path: JUDGE_CHAT, status: 200, body: completion({ content: huge }), times: 1 });
    const a = join(t.dir, 'a.jsonl');
    const env = { AIP_MAX_RESPONSE_BYTES: '1048576' };
    const r = await run(rollouts('-K', '1', '--concurrency', '1', '-o', a), { env });
    expect([r.code, r.stderr]).toEqual([
      0,
      expect.stringMatching(/Wrote 2 groups \(1 trajectory, 1 failed\)/),
    ]);
    expect(groupsOf(a)[0]!.exceptions![0]!.message).toMatch(/^sample 0: reward: .*larger than 1 MiB/);

    const long = JSON.stringify({ explanation: 'y'.repeat(100_000), score: 0.25 });
    await emu.fault({ path: JUDGE_CHAT, status: 200, body: completion({ content: long }), times: 1 });
    const b = join(t.dir, 'b.jsonl');
    expect((await run(rollouts('-K', '1', '--concurrency', '1', '-o', b))).code).toBe(0);
    const [first] = groupsOf(b)[0]!.trajectories;
    expect(first!.reward).toBe(0.25);
    expect(first!.metadata.judgement).toBe(`${long.slice(0, 16 * 1024)}…`);
  });
});

describe('a judge that cannot answer', () => {
  it('a model the Inference API does not serve is refused before anything is sampled', async () => {
    const r = await run([
      'rollouts',
      '--model',
      'agent',
      '--tasks',
      tasks,
      '--reward',
      'judge:nobody/no-such-judge',
    ]);
    expect([r.code, r.stderr]).toEqual([
      2,
      expect.stringMatching(/judge:nobody\/no-such-judge: the Inference API serves no such model/),
    ]);
    expect(await chats()).toEqual([]);
  });

  it('a 422 (no structured output for that model) stops the run with the written groups kept', async () => {
    await emu.fault({
      path: JUDGE_CHAT,
      status: 422,
      body: { detail: [{ loc: ['body', 'response_format'], msg: 'unsupported', type: 'x' }] },
      skip: 2,
      times: 100,
    });
    const out = join(t.dir, 'groups.jsonl');
    const r = await run(rollouts('-K', '2', '--concurrency', '1', '-o', out));
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/422/);
    expect(r.stderr).toMatch(/may not take structured output/);
    expect(r.stderr).toMatch(/--resume/);
    expect(groupsOf(out)).toHaveLength(1);
  });

  it('429s and 503s cost time, never a sample', async () => {
    await emu.fault({ path: JUDGE_CHAT, status: 429, retry_after: '0', times: 3 });
    await emu.fault({ path: JUDGE_CHAT, status: 503, retry_after: '0', skip: 3, times: 1 });
    const out = join(t.dir, 'groups.jsonl');
    const r = await run(rollouts('-K', '2', '--concurrency', '1', '-o', out));
    expect([r.code, r.stderr]).toEqual([0, expect.stringMatching(/Wrote 2 groups \(4 trajectories\)/)]);
    expect(await judgeRequests()).toHaveLength(8);
  });

  it('an attempt past --reward-timeout fails its trajectory', async () => {
    await emu.fault({ path: JUDGE_CHAT, delay_ms: 600_000, times: 1 });
    const out = join(t.dir, 'groups.jsonl');
    const r = await run(rollouts('-K', '1', '--concurrency', '1', '--reward-timeout', '0.5', '-o', out));
    expect(r.code).toBe(0);
    expect(groupsOf(out).flatMap((g) => g.exceptions ?? [])).toEqual([
      expect.objectContaining({ message: 'sample 0: reward: the judge took more than 0.5s' }),
    ]);
  });
});

describe("the judge's time", () => {
  it('is --reward-timeout per attempt, not --timeout: a judge slower than --timeout still scores', async () => {
    await emu.fault({ path: JUDGE_CHAT, delay_ms: 1500, times: 1 });
    const out = join(t.dir, 'groups.jsonl');
    const r = await run([
      '--timeout',
      '1',
      ...rollouts('-K', '1', '--concurrency', '1', '--reward-timeout', '30', '-o', out),
    ]);
    expect([r.code, r.stderr]).toEqual([0, expect.stringMatching(/Wrote 2 groups \(2 trajectories\)/)]);
    // Answered on the first attempt: a slow answer is waited for, not sent again.
    expect(await judgeRequests()).toHaveLength(2);
  });

  it("an earlier attempt's deadline, passed during a 429's pause, does not make a refusal a timeout", async () => {
    // The first attempt is answered 429 at once and waits 3 s, past its 2 s deadline; the next is a 401.
    await emu.fault({ path: JUDGE_CHAT, status: 429, retry_after: '3', times: 1 });
    await emu.fault({ path: JUDGE_CHAT, status: 401, skip: 1, times: 100 });
    const r = await run(rollouts('-K', '1', '--concurrency', '1', '--reward-timeout', '2'));
    expect([r.code, r.stderr]).toEqual([4, expect.stringMatching(/HTTP 401/)]);
    expect(r.stderr).not.toMatch(/took more than/);
  });
});

describe('judge flags refused before anything is sent', () => {
  const cases: Array<[string, string[], RegExp]> = [
    [
      '--rubric without a judge',
      ['--reward', 'exact', '--rubric', 'RUBRIC'],
      /--rubric is for a judge: give --reward judge:MODEL/,
    ],
    ['--judge-group without a judge', ['--reward', 'exact', '--judge-group'], /--judge-group is for a judge/],
    ['judge: without a model', ['--reward', 'judge:'], /judge: needs a model of the Inference API/],
    [
      'a reward of no kind',
      ['--reward', 'judge'],
      /expected exact, contains, regex, json-match or judge:MODEL/,
    ],
    [
      'a rubric that is not there',
      ['--reward', `judge:${JUDGE}`, '--rubric', 'missing.md'],
      /--rubric .*missing\.md: cannot read it \(no such file\)/,
    ],
    ['an empty rubric', ['--reward', `judge:${JUDGE}`, '--rubric', 'EMPTY'], /--rubric .*: empty/],
    [
      'a binary rubric',
      ['--reward', `judge:${JUDGE}`, '--rubric', 'BINARY'],
      /--rubric .*: not (UTF-8 )?text/,
    ],
    [
      'a rubric too large',
      ['--reward', `judge:${JUDGE}`, '--rubric', 'LARGE'],
      /--rubric .*large\.md: 65537 bytes, more than the 65536 bytes read from such a file/,
    ],
    // Opened without blocking: a FIFO is refused, never waited on.
    [
      'a FIFO for a rubric',
      ['--reward', `judge:${JUDGE}`, '--rubric', 'FIFO'],
      /--rubric .*fifo\.md: not a regular file/,
    ],
    [
      '--sandbox with a judge',
      ['--reward', `judge:${JUDGE}`, '--sandbox'],
      /--sandbox confines a --reward-cmd or --reward-server/,
    ],
  ];
  it.each(cases)('%s', async (_, flags, message) => {
    const files: Record<string, string> = {
      RUBRIC: rubric,
      EMPTY: join(t.dir, 'empty.md'),
      BINARY: join(t.dir, 'binary.md'),
      LARGE: join(t.dir, 'large.md'),
      FIFO: join(t.dir, 'fifo.md'),
    };
    writeFileSync(files.EMPTY!, ' \n');
    writeFileSync(files.BINARY!, Buffer.from([0x52, 0x00, 0xff, 0xfe]));
    writeFileSync(files.LARGE!, 'x'.repeat(64 * 1024 + 1));
    if (!existsSync(files.FIFO!)) execFileSync('mkfifo', [files.FIFO!]);
    const argv = flags.map((f) => files[f] ?? (f === 'missing.md' ? join(t.dir, f) : f));
    for (const command of [
      ['rollouts', '--model', 'agent'],
      ['eval', '--model', 'agent:step0'],
    ]) {
      const r = await run([...command, '--tasks', tasks, ...argv]);
      expect([r.code, r.stderr]).toEqual([2, expect.stringMatching(message)]);
    }
    expect(await chats()).toEqual([]);
  });
});

describe('train rl with a judge', () => {
  it('keeps the rubric and the group mode in its run directory, and resumes with them', async () => {
    const dir = join(t.dir, 'run');
    const r = await run([
      'train',
      'rl',
      '--model',
      'agent',
      '--tasks',
      tasks,
      '--steps',
      '1',
      '-K',
      '2',
      '--reward',
      `judge:${JUDGE}`,
      '--rubric',
      rubric,
      '--judge-group',
      '--run-dir',
      dir,
    ]);
    expect([r.code, r.stderr]).toEqual([0, expect.not.stringContaining('internal')]);
    const state = JSON.parse(readFileSync(join(dir, 'run.json'), 'utf8'));
    expect(state.sampling).toMatchObject({ reward: `judge:${JUDGE}`, rubric, judge_group: true });
    const asked = await judgeRequests();
    expect(asked).toHaveLength(2);
    expect(asked[0].messages[0].content).toContain(RUBRIC);
  });
});

describe('--resume with a judge', () => {
  it('carries on with the same rubric, and refuses another', async () => {
    const out = join(t.dir, 'groups.jsonl');
    // One group written, then the run stops: the judge refuses the key from its second request on.
    await emu.fault({ path: JUDGE_CHAT, status: 401, skip: 1, times: 100 });
    const first = await run(
      rollouts('-K', '1', '--concurrency', '1', '--rubric', rubric, '-o', out, '--max-retries', '0'),
    );
    expect(first.code).not.toBe(0);
    expect(groupsOf(out)).toHaveLength(1);
    await emu.reset();
    await run('models create --name agent --base-model OpenPipe/Qwen3-14B-Instruct -q');

    writeFileSync(rubric, 'Another rubric.\n');
    const other = await run(rollouts('-K', '1', '--rubric', rubric, '-o', out, '--resume'));
    expect([other.code, other.stderr]).toEqual([2, expect.stringMatching(/--rubric sha256:/)]);
    writeFileSync(rubric, `${RUBRIC}\n`);
    const same = await run(rollouts('-K', '1', '--rubric', rubric, '-o', out, '--resume'));
    expect([same.code, same.stderr]).toEqual([0, expect.not.stringContaining('internal')]);
    expect(groupsOf(out)).toHaveLength(2);
  });
});
