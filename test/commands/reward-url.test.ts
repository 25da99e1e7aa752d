// --reward-url (issue 30): a reward service over HTTP, here a node:http server on a loopback port of
// the test's own, scores rollouts on the emulator. What it answers decides each trajectory's reward or
// its failure; what it cannot answer (503s past --max-retries) stops the run; its key travels as a
// bearer token and is never printed; a URL or a key that may not be used is refused before a sample.

import { readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readAnswer } from '../../src/rollouts/reward-url.js';
import { useEmulator } from '../helpers/emulator.js';
import { readJsonLines } from '../helpers/json-lines.js';
import { patience } from '../helpers/patience.js';
import { writeArithmeticTasks } from '../helpers/tasks.js';
import { waitFor } from '../helpers/wait.js';

const t = useEmulator();
const { emu, run } = t;

const CHAT = '/training/v1/chat/completions';
const REWARD_KEY = 'reward-key-0123456789-do-not-print';

interface Trajectory {
  reward: number;
  metrics?: Record<string, unknown>;
  metadata: { task_id: string; sample: number };
}
interface Group {
  trajectories: Trajectory[];
  exceptions?: Array<{ message: string }>;
}

const groupsOf = (file: string) => readJsonLines<Group>(file);

/** One request as the service read it: its headers, its body parsed, and how often that id came. */
interface Received {
  headers: http.IncomingHttpHeaders;
  // biome-ignore lint/suspicious/noExplicitAny: the request body, read field by field by the tests
  body: any;
  attempt: number;
}

interface RewardService {
  url: string;
  received: Received[];
  /** Attempts per request id. */
  attempts: Map<unknown, number>;
  /** Requests whose connection aip closed before an answer. */
  dropped: number;
}

/** How the service answers one request: a status, a body (an object as JSON, a string as it is). */
type Answer = { status?: number; body?: unknown; contentType?: string } | 'hang';

const services: http.Server[] = [];
afterEach(async () => {
  for (const server of services.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

/** A reward service on 127.0.0.1 (an ephemeral port) at /score, answering as `answer` says. */
async function startService(answer: (received: Received) => Answer): Promise<RewardService> {
  const service: RewardService = { url: '', received: [], attempts: new Map(), dropped: 0 };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      const attempt = (service.attempts.get(body.id) ?? 0) + 1;
      service.attempts.set(body.id, attempt);
      const received = { headers: req.headers, body, attempt };
      service.received.push(received);
      const reply = answer(received);
      if (reply === 'hang') {
        res.on('close', () => {
          if (!res.writableEnded) service.dropped++;
        });
        return;
      }
      const text = typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body ?? null);
      res.writeHead(reply.status ?? 200, { 'content-type': reply.contentType ?? 'application/json' });
      res.end(text);
    });
  });
  services.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  service.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/score`;
  return service;
}

/** The reward of a sum: 1 when the reply is the reference, with the reply's length as a metric. */
function grade({ body }: Received): Answer {
  const { reply, reference } = body.trajectory;
  return {
    body: { id: body.id, reward: reply.trim() === reference ? 1 : 0, metrics: { chars: reply.length } },
  };
}

let tasks: string;
beforeEach(async () => {
  await run('models create --name agent --base-model OpenPipe/Qwen3-14B-Instruct -q');
  tasks = writeArithmeticTasks(join(t.dir, 'tasks.jsonl'), 2);
});

const rollouts = (url: string, ...more: string[]) => [
  'rollouts',
  '--model',
  'agent',
  '--tasks',
  tasks,
  '--reward-url',
  url,
  ...more,
];

describe('a reward service', () => {
  it("keeps a token in the URL's query out of the groups file", async () => {
    const service = await startService(grade);
    const out = join(t.dir, 'groups.jsonl');
    const token = 'query-token-0123456789';
    const r = await run(rollouts(`${service.url}?token=${token}`, '-K', '1', '-o', out));
    expect([r.code, r.stderr]).toEqual([0, expect.stringMatching(/Wrote 2 groups/)]);
    // The service was asked at the URL as given; the file says which service, the token masked.
    expect(service.received).toHaveLength(2);
    expect(readFileSync(out, 'utf8')).not.toContain(token);
    const [first] = groupsOf(out) as unknown as Array<{ metadata: { rollout_reward: string } }>;
    expect(first!.metadata.rollout_reward).toBe(`--reward-url ${service.url}?token=****`);
  });

  it('scores each trajectory from its answer, its key sent as a bearer token and never printed', async () => {
    const service = await startService(grade);
    const out = join(t.dir, 'groups.jsonl');
    const r = await run(rollouts(service.url, '-K', '2', '-o', out, '--debug'), {
      env: { AIP_REWARD_KEY: REWARD_KEY },
    });
    expect([r.code, r.stderr]).toEqual([0, expect.stringMatching(/Wrote 2 groups \(4 trajectories\)/)]);

    // One request a trajectory, each with an id of its own, the key as a bearer token.
    expect(service.received).toHaveLength(4);
    expect(new Set(service.received.map((q) => q.body.id)).size).toBe(4);
    for (const { headers, body, attempt } of service.received) {
      expect(attempt).toBe(1);
      expect(headers.authorization).toBe(`Bearer ${REWARD_KEY}`);
      expect(headers['content-type']).toBe('application/json');
      expect(Object.keys(body).sort()).toEqual(['id', 'trajectory']);
      expect(body.trajectory).toMatchObject({
        task_id: expect.stringMatching(/^sum-[01]$/),
        reference: expect.any(String),
        metadata: {},
        reply: expect.any(String),
        trajectory: { messages_and_choices: expect.any(Array) },
      });
    }

    // Each trajectory carries what the service answered for it.
    const answered = new Map(
      service.received.map(({ body }) => [
        `${body.trajectory.task_id}/${body.trajectory.trajectory.metadata.sample}`,
        grade({ body, headers: {}, attempt: 1 }),
      ]),
    );
    const groups = groupsOf(out);
    expect(groups).toHaveLength(2);
    for (const group of groups) {
      expect(group.exceptions).toBeUndefined();
      for (const tr of group.trajectories) {
        const expected = answered.get(`${tr.metadata.task_id}/${tr.metadata.sample}`) as {
          body: { reward: number; metrics: unknown };
        };
        expect([tr.reward, tr.metrics]).toEqual([expected.body.reward, expected.body.metrics]);
      }
    }

    // --debug logged the exchanges with the service, the key masked; it is nowhere in the output.
    expect(r.stderr).toMatch(/POST http:\/\/127\.0\.0\.1:\d+\/score/);
    expect(r.stderr).toMatch(/authorization: Bearer \*\*\*\*rint/);
    expect(r.stdout + r.stderr).not.toContain(REWARD_KEY);
  });

  it('scores eval samples too', async () => {
    const service = await startService(grade);
    const r = await run([
      'eval',
      '--model',
      'agent:step0',
      '--tasks',
      tasks,
      '--reward-url',
      service.url,
      '-K',
      '2',
      '--json',
    ]);
    expect([r.code, r.stderr]).toEqual([0, expect.not.stringContaining('internal')]);
    expect(service.received).toHaveLength(4);
    expect(JSON.parse(r.stdout).checkpoints).toEqual([expect.objectContaining({ samples: 4, failed: 0 })]);
  });

  it('that 503s is asked again, up to --max-retries, and scores when it answers', async () => {
    const service = await startService((q) =>
      q.attempt <= 2 ? { status: 503, body: { error: 'warming up' } } : grade(q),
    );
    const out = join(t.dir, 'groups.jsonl');
    const r = await run(rollouts(service.url, '-K', '2', '-o', out, '--max-retries', '2'));
    expect([r.code, r.stderr]).toEqual([0, expect.stringMatching(/Wrote 2 groups \(4 trajectories\)/)]);
    expect([...service.attempts.values()]).toEqual([3, 3, 3, 3]);
    expect(r.stderr).toMatch(/POST \/score: HTTP 503; retrying in \d+\.\ds \(retry 2 of 2\)/);
  });

  it('that keeps answering 503 stops the run after exactly --max-retries + 1 attempts', async () => {
    const one = join(t.dir, 'one.jsonl');
    writeFileSync(one, `${readFileSync(tasks, 'utf8').split('\n')[0]}\n`);
    const service = await startService(() => ({ status: 503, body: { error: 'down' } }));
    const out = join(t.dir, 'groups.jsonl');
    const r = await run([
      'rollouts',
      '--model',
      'agent',
      '--tasks',
      one,
      '--reward-url',
      service.url,
      '-K',
      '1',
      '-o',
      out,
      '--max-retries',
      '3',
    ]);
    expect(r.code).toBe(1);
    expect(service.received).toHaveLength(4);
    expect([...service.attempts.values()]).toEqual([4]);
    expect(r.stderr).toMatch(/reward service: .*HTTP 503 from POST \/score.*gave up after 4 attempts/);
    expect(r.stderr).toMatch(/would fail every trajectory, so the run stopped/);
    expect(r.stderr).toMatch(/carry on with: .*--resume/);
    expect(readFileSync(out, 'utf8')).toBe('');
  });

  it('that refuses its key stops the run at once, naming AIP_REWARD_KEY', async () => {
    const service = await startService(() => ({ status: 401, body: { error: 'bad key' } }));
    const out = join(t.dir, 'groups.jsonl');
    const token = 'query-token-0123456789';
    const r = await run(rollouts(`${service.url}?token=${token}`, '-K', '2', '-o', out), {
      env: { AIP_REWARD_KEY: REWARD_KEY },
    });
    expect(r.code).toBe(4);
    // The carry-on command names the service with its query token masked, as the groups file does.
    expect(r.stderr).toMatch(
      /carry on with: .*--reward-url 'http:\/\/127\.0\.0\.1:\d+\/score\?token=\*\*\*\*'/,
    );
    expect(r.stderr).not.toContain(token);
    expect([...service.attempts.values()].every((n) => n === 1)).toBe(true);
    expect(r.stderr).toMatch(/reward service: .*HTTP 401 from POST \/score/);
    expect(r.stderr).toMatch(/set AIP_REWARD_KEY to the key it takes/);
    expect(r.stderr).not.toContain(REWARD_KEY);
  });

  it('fails the trajectory whose answer is not a reward, with the reason, and the run goes on', async () => {
    const one = join(t.dir, 'one.jsonl');
    writeFileSync(one, `${readFileSync(tasks, 'utf8').split('\n')[0]}\n`);
    // By sample: garbage of every kind, and one good answer.
    const answers: Array<(id: number) => Answer> = [
      () => ({ body: 'not json at all', contentType: 'text/plain' }),
      () => ({ body: '{"id": ' }),
      (id) => ({ body: { id: id + 1000, reward: 1 } }),
      (id) => ({ body: { id, error: 'no reference for this task' } }),
      (id) => ({ body: { id, reward: '1' } }),
      (id) => ({ body: `{"id": ${id}, "reward": 1e999}` }),
      (id) => ({ body: { id, reward: 1, metrics: { note: 'text' } } }),
      () => ({ status: 422, body: { message: 'trajectory too long' } }),
      () => ({ status: 500, body: { message: 'reward raised KeyError' } }),
      (id) => ({ body: { id, reward: -0, metrics: { ok: true } } }),
      () => ({ body: [] }),
    ];
    const service = await startService(({ body }) =>
      answers[body.trajectory.trajectory.metadata.sample]!(body.id),
    );
    const out = join(t.dir, 'groups.jsonl');
    const r = await run([
      'rollouts',
      '--model',
      'agent',
      '--tasks',
      one,
      '--reward-url',
      service.url,
      '-K',
      String(answers.length),
      '-o',
      out,
      '--max-retries',
      '1',
    ]);
    expect([r.code, r.stderr]).toEqual([
      0,
      expect.stringMatching(/Wrote 1 group \(1 trajectory, 10 failed\)/),
    ]);
    const [group] = groupsOf(out);
    expect(group!.trajectories.map((tr) => [tr.metadata.sample, tr.reward, tr.metrics])).toEqual([
      [9, 0, { ok: true }],
    ]);
    const idOf = (sample: number) =>
      service.received.find((q) => q.body.trajectory.trajectory.metadata.sample === sample)!.body.id;
    expect(group!.exceptions!.map((e) => e.message)).toEqual([
      'sample 0: reward: the service answered "not json at all", not a JSON object {"id", "reward"}',
      'sample 1: reward: malformed JSON in the answer (HTTP 200 from POST /score)',
      `sample 2: reward: the service answered for id ${idOf(2) + 1000}, not for this request's id ${idOf(2)}`,
      'sample 3: reward: the service said: no reference for this task',
      `sample 4: reward: the service answered {"id":${idOf(4)},"reward":"1"}: no numeric "reward"`,
      'sample 5: reward: the service answered the reward Infinity is not a finite number',
      'sample 6: reward: "metrics" must be an object of numbers or booleans',
      'sample 7: reward: the reward service failed it: trajectory too long (HTTP 422 from POST /score)',
      'sample 8: reward: the reward service failed it: reward raised KeyError (HTTP 500 from POST /score); gave up after 2 attempts',
      'sample 10: reward: the service answered [], not a JSON object {"id", "reward"}',
    ]);
    // A 500 is asked again (the reward may have failed once); a refusal (422) and answers are not.
    expect(service.attempts.get(idOf(8))).toBe(2);
    expect(service.attempts.get(idOf(7))).toBe(1);
    expect(service.received).toHaveLength(answers.length + 1);
  });

  it('that hangs fails the trajectory at --reward-timeout, not retried, its connection closed', {
    timeout: patience(60_000),
  }, async () => {
    const one = join(t.dir, 'one.jsonl');
    writeFileSync(one, `${readFileSync(tasks, 'utf8').split('\n')[0]}\n`);
    const service = await startService(() => 'hang');
    const out = join(t.dir, 'groups.jsonl');
    const r = await run([
      'rollouts',
      '--model',
      'agent',
      '--tasks',
      one,
      '--reward-url',
      service.url,
      '--reward-timeout',
      '0.5',
      '-K',
      '1',
      '-o',
      out,
      '--max-retries',
      '3',
    ]);
    // The run wrote its group; that no trajectory of it has a reward is the exit status's business.
    expect([r.code, r.stderr]).toEqual([
      1,
      expect.stringMatching(/Wrote 1 group \(0 trajectories, 1 failed\)[\s\S]*every trajectory failed/),
    ]);
    expect(groupsOf(out)[0]!.exceptions!.map((e) => e.message)).toEqual([
      'sample 0: reward: timed out after 0.5s',
    ]);
    expect([...service.attempts.values()]).toEqual([1]);
    await waitFor(() => service.dropped === 1, patience(30_000), 'the hung request closed by aip');
  });
});

describe('--reward-url refused before anything is sent', () => {
  const refused = async (url: string, env: Record<string, string> = {}) => {
    const r = await run(rollouts(url, '-K', '1'), { env });
    expect(await emu.requests({ path: CHAT })).toEqual([]);
    return r;
  };

  it('a key bound for plain http to another machine', async () => {
    const r = await refused('http://rewards.example:8080/score', { AIP_REWARD_KEY: REWARD_KEY });
    expect([r.code, r.stderr]).toEqual([
      2,
      expect.stringContaining(
        'refusing to send AIP_REWARD_KEY over plain http to rewards.example:8080: give an https:// --reward-url',
      ),
    ]);
    expect(r.stdout + r.stderr).not.toContain(REWARD_KEY);
  });

  it('a URL that is not http or https, or no URL at all', async () => {
    const ftp = await refused('ftp://rewards.example/score');
    expect([ftp.code, ftp.stderr]).toEqual([2, expect.stringContaining('is a ftp URL')]);
    const none = await refused('rewards.example/score');
    expect([none.code, none.stderr]).toEqual([2, expect.stringContaining('is not a URL')]);
    const withCredentials = await refused('https://user:hunter2-secret@rewards.example/score');
    expect([withCredentials.code, withCredentials.stderr]).toEqual([
      2,
      expect.stringContaining("holds credentials: give the service's key in AIP_REWARD_KEY"),
    ]);
    expect(withCredentials.stderr).not.toContain('hunter2-secret');
  });
});

describe('readAnswer', () => {
  it('takes a finite reward and metrics for its own id only', () => {
    expect(readAnswer({ id: 3, reward: 0.5, metrics: { a: 1, b: false } }, 3)).toEqual({
      ok: true,
      scored: { reward: 0.5, metrics: { a: 1, b: false } },
    });
    expect(readAnswer({ id: '3', reward: 0.5 }, 3).ok).toBe(false);
    expect(readAnswer({ id: 3, reward: Number.NaN }, 3).ok).toBe(false);
    expect(readAnswer({ id: 3, reward: 1, metrics: { a: Number.NEGATIVE_INFINITY } }, 3).ok).toBe(false);
    expect(readAnswer({ id: 3, reward: 1, error: 'no' }, 3)).toEqual({
      ok: false,
      reason: 'the service said: no',
    });
    expect(readAnswer(undefined, 3).ok).toBe(false);
  });
});
