// Checkpoint ranges in aip eval, on the emulator: `--model m:step*` (every checkpoint of m), narrowed
// by --every N (the steps that are multiples of N) and --last K (the K highest), or --steps 0,4,8 of
// the one model given. A row per checkpoint, each sampled alike; the steps chosen said on stderr. The
// checkpoints are listed before anything is sampled; flags that do not combine cost no request at all,
// and a range that selects nothing or a step the model lacks costs the listing only.

import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { formatSteps, parseSteps } from '../../src/checkpoints/steps.js';
import { useEmulator } from '../helpers/emulator.js';

const t = useEmulator();
const { emu, run } = t;
const CHAT = '/training/v1/chat/completions';
const TASK_COUNT = 3;
let id: string;
let tasks: string;

interface EvalDocument {
  seed: number;
  checkpoints: Array<{ model: string; uri: string; samples: number }>;
}

beforeEach(async () => {
  id = (await run('models create --name agent --base-model OpenPipe/Qwen3-14B-Instruct -q')).stdout.trim();
  // Steps 0 (from creation) to 8.
  expect((await emu.control('POST', `/models/${id}/checkpoints`, { count: 8 })).status).toBe(200);
  tasks = join(t.dir, 'tasks.jsonl');
  writeFileSync(
    tasks,
    `${Array.from({ length: TASK_COUNT }, (_, i) =>
      JSON.stringify({
        id: `t${i}`,
        messages: [{ role: 'user', content: `What is ${i} + ${i}?` }],
        reference: String(2 * i),
      }),
    ).join('\n')}\n`,
  );
});

const evalArgs = (...flags: string[]) => ['eval', ...flags, '--tasks', tasks, '--reward', 'exact'];

/** An eval that succeeds: its document, its stderr, and the requests it made. */
async function evaluate(...flags: string[]) {
  await emu.control('DELETE', '/requests');
  const r = await run([...evalArgs(...flags), '--json']);
  expect([r.code, r.stderr]).toEqual([0, expect.any(String)]);
  const doc = JSON.parse(r.stdout) as EvalDocument;
  const sent = (await emu.requests({ method: 'POST', path: CHAT })).map(
    (x) => x.body as { model: string; seed: number; messages: unknown },
  );
  const listings = await emu.requests({
    method: 'GET',
    path: `/training/v1/preview/models/${id}/checkpoints`,
  });
  return { doc, stderr: r.stderr, sent, listings, models: doc.checkpoints.map((c) => c.model) };
}

/** A refused eval: exit 2 with the message, nothing sampled; `listed`: whether the listing was made. */
async function refused(flags: string[], message: RegExp, listed: boolean) {
  await emu.control('DELETE', '/requests');
  const r = await run(evalArgs(...flags));
  expect([r.code, r.stderr]).toEqual([2, expect.stringMatching(message)]);
  expect(r.stdout).toBe('');
  expect(await emu.requests({ method: 'POST', path: CHAT })).toHaveLength(0);
  const listings = await emu.requests({
    method: 'GET',
    path: `/training/v1/preview/models/${id}/checkpoints`,
  });
  expect(listings.length > 0).toBe(listed);
  return r.stderr;
}

describe('aip eval over a range of checkpoints', () => {
  it('m:step* evaluates every checkpoint, a row each, each sampled alike', async () => {
    const { doc, stderr, sent, listings, models } = await evaluate('--model', 'agent:step*');
    expect(models).toEqual(Array.from({ length: 9 }, (_, s) => `agent:step${s}`));
    expect(doc.checkpoints.map((c) => c.uri)).toEqual(
      Array.from({ length: 9 }, (_, s) => `wandb-artifact:///local/demo/agent:step${s}`),
    );
    for (const c of doc.checkpoints) expect(c.samples).toBe(TASK_COUNT);
    expect(stderr).toContain('agent:step* → steps 0-8 (9 of 9 checkpoints)');
    expect(stderr).toContain(`Evaluating 9 checkpoints on ${TASK_COUNT} tasks`);
    // One listing, before the samples; every checkpoint asked the same things but for the model.
    expect(listings).toHaveLength(1);
    expect(sent).toHaveLength(9 * TASK_COUNT);
    const asked = (uri: string) =>
      sent
        .filter((s) => s.model === uri)
        .map((s) => JSON.stringify([s.messages, s.seed]))
        .sort();
    for (const c of doc.checkpoints) expect(asked(c.uri)).toEqual(asked(doc.checkpoints[0]!.uri));
  });

  it('--every N keeps the multiples of N, --last K the K highest, both in that order', async () => {
    const every = await evaluate('--model', 'agent:step*', '--every', '4');
    expect(every.models).toEqual(['agent:step0', 'agent:step4', 'agent:step8']);
    expect(every.stderr).toContain('agent:step* --every 4 → steps 0, 4, 8 (3 of 9 checkpoints)');
    expect(every.sent).toHaveLength(3 * TASK_COUNT);

    const last = await evaluate('--model', 'agent:step*', '--last', '2');
    expect(last.models).toEqual(['agent:step7', 'agent:step8']);
    expect(last.stderr).toContain('agent:step* --last 2 → steps 7-8 (2 of 9 checkpoints)');

    const both = await evaluate('--model', 'agent:step*', '--every', '3', '--last', '2');
    expect(both.models).toEqual(['agent:step3', 'agent:step6']);

    // The one model given, without :step*, is the range the flags narrow.
    const bare = await evaluate('--model', 'agent', '--last', '3');
    expect(bare.models).toEqual(['agent:step6', 'agent:step7', 'agent:step8']);

    // A wandb-artifact URI of a model created here is a range too; its rows named as it was given.
    const uri = await evaluate('--model', 'wandb-artifact:///local/demo/agent:step*', '--last', '1');
    expect(uri.models).toEqual(['wandb-artifact:///local/demo/agent:step8']);
  });

  it('--steps evaluates those steps of the one model given', async () => {
    const { models, stderr, sent, listings } = await evaluate('--model', 'agent', '--steps', '8,0,4');
    expect(models).toEqual(['agent:step0', 'agent:step4', 'agent:step8']);
    expect(stderr).toContain('agent --steps 8,0,4 → steps 0, 4, 8 (3 of 9 checkpoints)');
    expect(sent).toHaveLength(3 * TASK_COUNT);
    expect(listings).toHaveLength(1);
    expect((await evaluate('--model', 'agent:step*', '--steps', '2-3')).models).toEqual([
      'agent:step2',
      'agent:step3',
    ]);
  });

  it('a range beside other checkpoints: rows in the order given, a checkpoint twice refused', async () => {
    const { models } = await evaluate('--model', 'agent:step1', '--model', 'agent:step*', '--every', '4');
    expect(models).toEqual(['agent:step1', 'agent:step0', 'agent:step4', 'agent:step8']);
    await refused(
      ['--model', 'agent:step4', '--model', 'agent:step*', '--every', '4'],
      /agent:step4 is selected twice/,
      true,
    );
  });

  it('refuses flags that do not combine before any request', async () => {
    await refused(
      ['--model', 'agent', '--steps', '0,4', '--every', '2'],
      /--steps names the steps: it does not combine with --every/,
      false,
    );
    await refused(
      ['--model', 'agent', '--steps', '0,4', '--last', '1'],
      /--steps names the steps: it does not combine with --last/,
      false,
    );
    await refused(
      ['--model', 'agent', '--model', 'agent:step1', '--steps', '0,4'],
      /--steps picks steps of one model: give --model once \(not 2 times\)/,
      false,
    );
    await refused(
      ['--model', 'agent:step3', '--steps', '0,4'],
      /--steps picks steps of the model given: give --model agent \(without :step3\)/,
      false,
    );
    await refused(
      ['--model', 'agent:step3', '--every', '2'],
      /--every narrows a range of checkpoints: give --model NAME:step\*/,
      false,
    );
    await refused(
      ['--model', 'agent:step1', '--model', 'agent:step2', '--every', '2', '--last', '1'],
      /--every and --last narrow a range of checkpoints/,
      false,
    );
    await refused(['--model', 'agent', '--steps', '1,x'], /invalid step "x" in --steps/, false);
    await refused(['--model', 'agent:step*', '--every', '0'], /--every/, false);
    await refused(['--model', 'agent:step*', '--last', '-1'], /--last/, false);
  });

  it('refuses a range that selects nothing and a step that does not exist, after the listing only', async () => {
    await refused(
      ['--model', 'agent', '--steps', '0,4,42,43'],
      /^error: agent --steps 0,4,42,43: no checkpoint of steps 42-43 \(its checkpoints: steps 0-8\); nothing was sampled$/m,
      true,
    );
    // Without step 0 (a multiple of every N), --every 9 keeps nothing of steps 1-8.
    expect((await emu.api('DELETE', `/preview/models/${id}/checkpoints`, { steps: [0] })).status).toBe(200);
    await refused(
      ['--model', 'agent:step*', '--every', '9'],
      /^error: agent:step\* --every 9 selects no checkpoint \(its checkpoints: steps 1-8\); nothing was sampled$/m,
      true,
    );
  });

  it('a range is for eval: rollouts and chat, which take one checkpoint, refuse it', async () => {
    const rollouts = await run(['rollouts', '--model', 'agent:step*', '--tasks', tasks, '--reward', 'exact']);
    expect([rollouts.code, rollouts.stderr]).toEqual([
      2,
      expect.stringMatching(/names every checkpoint of agent/),
    ]);
    const chat = await run(['chat', '-m', 'agent:step*', 'hi']);
    expect([chat.code, chat.stderr]).toEqual([2, expect.stringMatching(/names every checkpoint of agent/)]);
    expect(await emu.requests({ method: 'POST', path: CHAT })).toHaveLength(0);
  });

  it('parses and prints step lists', () => {
    expect(parseSteps('8, 0,2-4,4')).toEqual([0, 2, 3, 4, 8]);
    expect(() => parseSteps('4-2')).toThrow(/the first step is after the last/);
    // A number past 2^53 has no successor: refused, not looped on forever.
    for (const huge of ['99999999999999999999', '9007199254740993', '0-99999999999999999999'])
      expect(() => parseSteps(huge)).toThrow(/larger than any step can be/);
    expect(formatSteps([0, 1, 2, 5, 7, 8])).toBe('0-2, 5, 7-8');
  });
});
