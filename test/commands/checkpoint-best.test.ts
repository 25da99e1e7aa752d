// `name:best`, `name:best[metric]` and `name:latest` on the emulator: resolved to a step by one
// listing of the model's checkpoints, before anything else is sent, said on stderr
// (`agent:best → agent:step2 (reward 0.9, …)`), in chat, rollouts, eval and reward test. Higher is
// better but for a loss; a metric no checkpoint has is a usage error naming those there are; metric
// names from the server are own properties only (`constructor`, `__proto__` are names like others).
// checkpoints list marks the best by reward in its terminal table; piped rows and --json keep their shape.

import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stripVTControlCharacters as plain } from 'node:util';
import { beforeEach, describe, expect, it } from 'vitest';
import { bestCheckpoint } from '../../src/checkpoints/best.js';
import { lowerIsBetter, parseCheckpointName } from '../../src/checkpoints/names.js';
import { useEmulator } from '../helpers/emulator.js';

const t = useEmulator();
const { emu, run } = t;
const CHAT = '/training/v1/chat/completions';
const ARTIFACT = 'wandb-artifact:///local/demo/agent';
let id: string;
let tasks: string;

// Steps 1-5 (step 0, from creation, has no metrics): the best reward is 0.9 at steps 2 and 4 (the
// earlier wins), the lowest loss 0.1 at step 3, the highest loss 0.8 at step 1.
const METRICS: Array<Record<string, number>> = [
  { reward: 0.2, loss: 0.8 },
  { reward: 0.9, loss: 0.5 },
  { reward: 0.5, loss: 0.1 },
  { reward: 0.9, loss: 0.3 },
  { reward: 0.3, loss: 0.2 },
];

const listingPath = () => `/training/v1/preview/models/${id}/checkpoints`;

beforeEach(async () => {
  id = (await run('models create --name agent --base-model OpenPipe/Qwen3-14B-Instruct -q')).stdout.trim();
  for (const [i, metrics] of METRICS.entries())
    expect((await emu.control('POST', `/models/${id}/checkpoints`, { steps: [i + 1], metrics })).status).toBe(
      200,
    );
  tasks = join(t.dir, 'tasks.jsonl');
  writeFileSync(
    tasks,
    '{"id": "t0", "messages": [{"role": "user", "content": "Say 2."}], "reference": "2"}\n',
  );
  await emu.control('DELETE', '/requests');
});

/** The models of the chat requests made, and whether every listing came before the first of them. */
async function sentModels(): Promise<string[]> {
  const all = await emu.requests();
  const firstChat = all.findIndex((r) => r.method === 'POST' && r.path === CHAT);
  const lastListing = all.findLastIndex((r) => r.method === 'GET' && r.path === listingPath());
  if (firstChat >= 0) expect(lastListing).toBeLessThan(firstChat);
  return all
    .filter((r) => r.method === 'POST' && r.path === CHAT)
    .map((r) => (r.body as { model: string }).model);
}

describe('name:best and name:latest', () => {
  it('chat -m agent:best asks the checkpoint best by reward, saying which it is', async () => {
    const r = await run(['chat', '-m', 'agent:best', 'hi']);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('agent:best → agent:step2 (reward 0.9, highest of 6 checkpoints)');
    expect(await sentModels()).toEqual([`${ARTIFACT}:step2`]);
    expect(await emu.requests({ method: 'GET', path: listingPath() })).toHaveLength(1);
  });

  it(':best[metric] goes by that metric: lower is better for a loss, :max or :min say otherwise', async () => {
    const resolved = async (ref: string) => {
      await emu.control('DELETE', '/requests');
      const r = await run(['chat', '-m', ref, 'hi']);
      expect([r.code, r.stderr]).toEqual([0, expect.stringContaining(`${ref} → `)]);
      return { models: await sentModels(), stderr: r.stderr };
    };
    expect((await resolved('agent:best[reward]')).models).toEqual([`${ARTIFACT}:step2`]);
    const loss = await resolved('agent:best[loss]');
    expect(loss.models).toEqual([`${ARTIFACT}:step3`]);
    expect(loss.stderr).toContain('agent:best[loss] → agent:step3 (loss 0.1, lowest of 6 checkpoints)');
    expect((await resolved('agent:best[loss:max]')).models).toEqual([`${ARTIFACT}:step1`]);
    expect((await resolved('agent:best[reward:min]')).models).toEqual([`${ARTIFACT}:step1`]);
    // The model by its full name, or as a wandb-artifact URI of a model created here.
    expect((await resolved('local/demo/agent:best')).models).toEqual([`${ARTIFACT}:step2`]);
    expect((await resolved(`${ARTIFACT}:best[loss]`)).models).toEqual([`${ARTIFACT}:step3`]);
  });

  it(':latest is the highest step, found with one request for one checkpoint', async () => {
    const r = await run(['chat', '-m', 'agent:latest', 'hi']);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('agent:latest → agent:step5');
    expect(await sentModels()).toEqual([`${ARTIFACT}:step5`]);
    const listings = await emu.requests({ method: 'GET', path: listingPath() });
    expect(listings.map((l) => l.query)).toEqual([{ order: 'desc', limit: '1' }]);
  });

  it('rollouts, eval and reward test take them too', async () => {
    const rollouts = await run([
      'rollouts',
      '--model',
      'agent:best[loss]',
      '--tasks',
      tasks,
      '--reward',
      'exact',
      '-K',
      '2',
    ]);
    expect(rollouts.code).toBe(0);
    expect(rollouts.stderr).toContain('agent:best[loss] → agent:step3');
    expect(new Set(await sentModels())).toEqual(new Set([`${ARTIFACT}:step3`]));

    await emu.control('DELETE', '/requests');
    const evaluated = await run([
      'eval',
      '--model',
      'agent:best',
      '--model',
      'agent:latest',
      '--tasks',
      tasks,
      '--reward',
      'exact',
      '--json',
    ]);
    expect(evaluated.code).toBe(0);
    const doc = JSON.parse(evaluated.stdout) as { checkpoints: Array<{ model: string; uri: string }> };
    expect(doc.checkpoints.map((c) => [c.model, c.uri])).toEqual([
      ['agent:step2', `${ARTIFACT}:step2`],
      ['agent:step5', `${ARTIFACT}:step5`],
    ]);
    expect(evaluated.stderr).toContain('agent:best → agent:step2 (reward 0.9');
    expect(evaluated.stderr).toContain('agent:latest → agent:step5');
    // One listing of the model for both names.
    expect(await emu.requests({ method: 'GET', path: listingPath() })).toHaveLength(1);
    expect(await sentModels()).toEqual([`${ARTIFACT}:step2`, `${ARTIFACT}:step5`]);

    await emu.control('DELETE', '/requests');
    const tested = await run([
      'reward',
      'test',
      '--model',
      'agent:best',
      '--tasks',
      tasks,
      '--reward',
      'exact',
      '-K',
      '1',
    ]);
    expect(tested.stderr).toContain('agent:best → agent:step2');
    expect(await sentModels()).toEqual([`${ARTIFACT}:step2`]);
  });

  it('a metric no checkpoint has is a usage error naming the metrics, and nothing is sampled', async () => {
    for (const [ref, metric] of [
      ['agent:best[accuracy]', 'accuracy'],
      ['agent:best[constructor]', 'constructor'],
      ['agent:best[__proto__]', '__proto__'],
      ['agent:best[toString]', 'toString'],
      ['agent:best[hasOwnProperty]', 'hasOwnProperty'],
    ]) {
      for (const argv of [
        ['chat', '-m', ref!, 'hi'],
        ['eval', '--model', ref!, '--tasks', tasks, '--reward', 'exact'],
      ]) {
        const r = await run(argv);
        expect([r.code, r.stderr.trimEnd()]).toEqual([
          2,
          `error: no checkpoint of local/demo/agent (${id}) has the metric ${metric}; its metrics: loss, reward`,
        ]);
      }
    }
    const empty = await run(['chat', '-m', 'agent:best[]', 'hi']);
    expect([empty.code, empty.stderr]).toEqual([
      2,
      expect.stringMatching(/needs a metric between the brackets/),
    ]);
    const open = await run(['chat', '-m', 'agent:best[reward', 'hi']);
    expect([open.code, open.stderr]).toEqual([2, expect.stringMatching(/close the metric's bracket/)]);
    expect(await sentModels()).toEqual([]);
  });

  it('a metric named constructor or __proto__ that checkpoints do have is a metric like another', async () => {
    await emu.control('POST', `/models/${id}/checkpoints`, {
      steps: [6],
      metrics: JSON.parse('{"reward": 0.1, "constructor": 7, "__proto__": 3}'),
    });
    const byConstructor = await run(['chat', '-m', 'agent:best[constructor]', 'hi']);
    expect([byConstructor.code, byConstructor.stderr]).toEqual([
      0,
      expect.stringContaining(
        'agent:best[constructor] → agent:step6 (constructor 7, highest of 7 checkpoints)',
      ),
    ]);
    const byProto = await run(['chat', '-m', 'agent:best[__proto__]', 'hi']);
    expect([byProto.code, byProto.stderr]).toEqual([
      0,
      expect.stringContaining('→ agent:step6 (__proto__ 3'),
    ]);
    // A value that is not a finite number is no value.
    await emu.control('POST', `/models/${id}/checkpoints`, { steps: [8], metrics: { reward: 'high' } });
    const r = await run(['chat', '-m', 'agent:best', 'hi']);
    expect(r.stderr).toContain('agent:best → agent:step2 (reward 0.9, highest of 8 checkpoints)');
  });

  it('an unknown model is not found, a UUID not created here a usage error; chat leaves an unknown name to the Inference API', async () => {
    const unknown = await run(['eval', '--model', 'other:best', '--tasks', tasks, '--reward', 'exact']);
    expect([unknown.code, unknown.stderr]).toEqual([3, expect.stringMatching(/unknown model "other"/)]);
    const uuid = await run([
      'eval',
      '--model',
      '00000000-0000-4000-8000-000000000000:best',
      '--tasks',
      tasks,
      '--reward',
      'exact',
    ]);
    expect([uuid.code, uuid.stderr]).toEqual([2, expect.stringMatching(/is not one created here/)]);
    // chat leaves a name it does not know to the Inference API, which has no such model.
    const inference = await run(['chat', '-m', 'other:best', 'hi']);
    expect(inference.code).toBe(3);
    expect(await emu.requests({ method: 'GET', path: listingPath() })).toEqual([]);
  });

  it('parses names and picks the best with own metrics only', () => {
    expect(parseCheckpointName('agent:best')).toEqual({
      kind: 'best',
      base: 'agent',
      by: { metric: 'reward', lowest: false },
    });
    expect(parseCheckpointName(`${ARTIFACT}:best[val_loss]`)).toEqual({
      kind: 'best',
      base: ARTIFACT,
      by: { metric: 'val_loss', lowest: true },
    });
    expect(parseCheckpointName('agent:step12')).toEqual({ kind: 'step', base: 'agent', step: 12 });
    expect(parseCheckpointName('agent')).toEqual({ kind: 'model', base: 'agent' });
    expect([
      lowerIsBetter('loss'),
      lowerIsBetter('policy_loss'),
      lowerIsBetter('lossy'),
      lowerIsBetter('reward'),
    ]).toEqual([true, true, false, false]);
    const checkpoint = (step: number, metrics: Record<string, number>) => ({ id: `c${step}`, step, metrics });
    expect(
      bestCheckpoint([checkpoint(1, {}), checkpoint(2, { reward: 1 })], {
        metric: 'constructor',
        lowest: false,
      }),
    ).toBe(undefined);
    expect(
      bestCheckpoint([checkpoint(2, { reward: 1 }), checkpoint(1, { reward: 1 })], {
        metric: 'reward',
        lowest: false,
      })?.checkpoint.step,
    ).toBe(1);
  });
});

describe('checkpoints list marks the best', () => {
  it('in the terminal table only: piped rows and --json keep their shape', async () => {
    // One page that holds every checkpoint: a BEST column.
    const page = await run(['checkpoints', 'list', 'agent'], { stdoutTTY: true, env: { NO_COLOR: '1' } });
    expect(page.code).toBe(0);
    const lines = plain(page.stdout).trimEnd().split('\n');
    expect(lines[0]!.split(/\s{2,}/)).toEqual(['STEP', 'ID', 'METRICS', 'BEST']);
    const marked = lines.slice(1).filter((l) => l.endsWith('best reward'));
    expect(marked).toHaveLength(1);
    expect(marked[0]).toMatch(/^2 /);
    // --all streams its pages: the best is said after the table, once every page is in.
    const all = await run(['checkpoints', 'list', 'agent', '--all', '--limit', '2'], {
      stdoutTTY: true,
      env: { NO_COLOR: '1' },
    });
    expect(plain(all.stdout).split('\n')[0]).toMatch(/METRICS$/);
    expect(all.stderr).toBe('Best by reward: step 2 (reward 0.9)\n');
    // A page of several is not marked: its best need not be the model's.
    const partial = await run(['checkpoints', 'list', 'agent', '--limit', '2'], {
      stdoutTTY: true,
      env: { NO_COLOR: '1' },
    });
    expect(plain(partial.stdout).split('\n')[0]).toMatch(/METRICS$/);
    expect(partial.stderr).not.toContain('Best by');

    const piped = await run(['checkpoints', 'list', 'agent', '--all']);
    expect(piped.stderr).toBe('');
    for (const row of piped.stdout.trimEnd().split('\n')) expect(row.split('\t')).toHaveLength(3);
    const json = JSON.parse((await run(['checkpoints', 'list', 'agent', '--all', '--json'])).stdout) as Array<
      Record<string, unknown>
    >;
    expect(json).toHaveLength(6);
    for (const c of json) expect(Object.keys(c).sort()).toEqual(['id', 'metrics', 'step']);
  });

  it('marks nothing when no checkpoint has a reward', async () => {
    const other = (
      await run('models create --name plain --base-model OpenPipe/Qwen3-14B-Instruct -q')
    ).stdout.trim();
    await emu.control('POST', `/models/${other}/checkpoints`, { steps: [1], metrics: { loss: 0.5 } });
    const r = await run(['checkpoints', 'list', 'plain', '--all'], {
      stdoutTTY: true,
      env: { NO_COLOR: '1' },
    });
    expect(r.code).toBe(0);
    expect(plain(r.stdout).split('\n')[0]).toMatch(/METRICS$/);
    const all = await run(['checkpoints', 'list', 'plain', '--all'], { stdoutTTY: true });
    expect(all.stderr).toBe('');
  });
});
