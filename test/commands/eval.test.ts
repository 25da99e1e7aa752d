// aip eval on the emulator: a model trained for four steps, whose checkpoints answer arithmetic right
// more often the later they are (p(step) = min(0.95, 0.2 + 0.2·step), a sample right at one step right
// at every later one). Two checkpoints, the same requests but for the model: the later one scores
// higher, --diff lists only the tasks that changed (none for the worse), --json and --fail-under say
// so to a script, a failed reward is kept out of the mean, and bad input costs no request.

import { EventEmitter } from 'node:events';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stripVTControlCharacters as plain } from 'node:util';
import { beforeEach, describe, expect, it } from 'vitest';
import { checkpointStats, taskDiffs } from '../../src/eval/statistics.js';
import { dollars } from '../../src/output/dollars.js';
import { useEmulator } from '../helpers/emulator.js';
import { finishedJob } from '../helpers/jobs.js';
import { patience } from '../helpers/patience.js';

const t = useEmulator();
const { emu, run } = t;
const CHAT = '/training/v1/chat/completions';
const EARLY = 'agent:step1';
const LATE = 'agent:step4';
const TASK_COUNT = 24;

interface EvalDocument {
  seed: number;
  pass_threshold: number;
  checkpoints: Array<{
    model: string;
    uri: string;
    samples: number;
    mean: number | null;
    std: number | null;
    pass_rate: number | null;
    failed: number;
    spent: { requests: number; prompt_tokens: number; completion_tokens: number; cost: number | null };
  }>;
  tasks?: Array<{ id: string; means: Array<number | null>; change: number | null }>;
  changes?: { improved: number; worse: number; unchanged: number; unscored: number };
}

let tasks: string;

beforeEach(async () => {
  // Checkpoints at steps 1 to 4: p = 0.4 at step 1, 0.95 at step 4.
  await finishedJob(t, 4);
  tasks = join(t.dir, 'arithmetic.jsonl');
  writeFileSync(
    tasks,
    `${Array.from({ length: TASK_COUNT }, (_, i) => {
      const a = 11 + i * 7;
      const b = 5 + i * 3;
      return JSON.stringify({
        id: `sum-${i}`,
        messages: [{ role: 'user', content: `What is ${a} + ${b}? Reply with the number only.` }],
        reference: String(a + b),
      });
    }).join('\n')}\n`,
  );
});

const evalJson = async (...extra: string[]) => {
  const r = await run([
    'eval',
    '--model',
    EARLY,
    '--model',
    LATE,
    '--tasks',
    tasks,
    '--reward',
    'exact',
    '--json',
    ...extra,
  ]);
  expect([r.code, r.stderr]).toEqual([0, expect.any(String)]);
  return JSON.parse(r.stdout) as EvalDocument;
};

describe('aip eval', () => {
  it('scores the later checkpoint higher, on the same requests but for the model', async () => {
    // Requests share the run's signal: none may leave a listener on it (Node warns past 10, on stderr).
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(warning.name);
    process.on('warning', onWarning);
    const doc = await evalJson();
    await new Promise((resolve) => setImmediate(resolve));
    process.off('warning', onWarning);
    expect(warnings).not.toContain('MaxListenersExceededWarning');
    expect(doc.seed).toBe(0);
    expect(doc.pass_threshold).toBe(1);
    expect(doc.tasks).toBeUndefined();
    const [early, late] = doc.checkpoints;
    expect(early).toMatchObject({
      model: EARLY,
      uri: 'wandb-artifact:///local/demo/agent:step1',
      samples: TASK_COUNT,
      failed: 0,
    });
    expect(late).toMatchObject({
      model: LATE,
      uri: 'wandb-artifact:///local/demo/agent:step4',
      samples: TASK_COUNT,
      failed: 0,
    });
    expect(late!.mean!).toBeGreaterThan(early!.mean!);
    // Rewards of 0 or 1: the pass rate is the mean, the spread that of a coin with that bias.
    for (const c of doc.checkpoints) {
      expect(c.pass_rate).toBe(c.mean);
      expect(c.std).toBeCloseTo(Math.sqrt(c.mean! * (1 - c.mean!)), 10);
    }

    // One request per task and checkpoint; each task's seed the same under both checkpoints.
    const sent = (await emu.requests({ method: 'POST', path: CHAT })).map(
      (r) => r.body as { model: string; seed: number; messages: unknown; temperature: number },
    );
    expect(sent).toHaveLength(2 * TASK_COUNT);
    const asked = (uri: string) =>
      sent
        .filter((s) => s.model === uri)
        .map((s) => JSON.stringify([s.messages, s.seed, s.temperature]))
        .sort();
    expect(asked(early!.uri)).toHaveLength(TASK_COUNT);
    expect(asked(early!.uri)).toEqual(asked(late!.uri));

    // --seed changes the requests, the same for both checkpoints again, and is reported.
    await emu.control('DELETE', '/requests');
    expect((await evalJson('--seed', '7')).seed).toBe(7);
    const reseeded = (await emu.requests({ method: 'POST', path: CHAT })).map(
      (r) => r.body as { model: string; seed: number },
    );
    const seedsOf = (uri: string) =>
      reseeded
        .filter((s) => s.model === uri)
        .map((s) => s.seed)
        .sort();
    expect(seedsOf(early!.uri)).toEqual(seedsOf(late!.uri));
    expect(seedsOf(early!.uri)).not.toEqual(
      sent
        .filter((s) => s.model === early!.uri)
        .map((s) => s.seed)
        .sort(),
    );
  });

  it('prints a row per checkpoint on a terminal, results only on stdout', async () => {
    const doc = await evalJson();
    const r = await run(['eval', '--model', EARLY, '--model', LATE, '--tasks', tasks, '--reward', 'exact'], {
      stdoutTTY: true,
    });
    expect(r.code).toBe(0);
    const lines = plain(r.stdout).trimEnd().split('\n');
    expect(lines[0]!.split(/\s{2,}/)).toEqual([
      'CHECKPOINT',
      'SAMPLES',
      'MEAN',
      'STD',
      'PASS RATE',
      'FAILED',
      'TOKENS',
      'COST',
    ]);
    const row = (i: number) => {
      const c = doc.checkpoints[i]!;
      return [
        c.model,
        String(TASK_COUNT),
        c.mean!.toFixed(3),
        c.std!.toFixed(3),
        `${(c.pass_rate! * 100).toFixed(1)}%`,
        '0',
        String(c.spent.prompt_tokens + c.spent.completion_tokens),
        c.spent.cost === null ? 'unknown' : dollars(c.spent.cost),
      ];
    };
    expect(lines.slice(1).map((l) => l.split(/\s{2,}/))).toEqual([row(0), row(1)]);
    expect(r.stderr).toContain(
      `Evaluating 2 checkpoints on ${TASK_COUNT} tasks, 1 sample each, seed 0 (the same for every checkpoint)`,
    );
  });

  it('--diff lists only the tasks that changed, largest change first, with the counts', async () => {
    const doc = await evalJson('--diff');
    const improved = doc.tasks!;
    expect(improved.length).toBeGreaterThan(0);
    // A sample right at step 1 is right at step 4: nothing gets worse, and each change is 0 → 1.
    for (const task of improved) expect(task).toMatchObject({ means: [0, 1], change: 1 });
    expect(doc.changes).toEqual({
      improved: improved.length,
      worse: 0,
      unchanged: TASK_COUNT - improved.length,
      unscored: 0,
    });
    expect(doc.checkpoints[1]!.mean! - doc.checkpoints[0]!.mean!).toBeCloseTo(
      improved.length / TASK_COUNT,
      10,
    );

    const r = await run(
      ['eval', '--model', EARLY, '--model', LATE, '--tasks', tasks, '--reward', 'exact', '--diff'],
      {
        stdoutTTY: true,
      },
    );
    expect(r.code).toBe(0);
    const [table, diff, counts] = plain(r.stdout).trimEnd().split('\n\n');
    expect(table!.split('\n')).toHaveLength(3);
    const diffLines = diff!.split('\n');
    expect(diffLines[0]!.split(/\s{2,}/)).toEqual(['TASK', 'AGENT:STEP1', 'AGENT:STEP4', 'CHANGE']);
    expect(diffLines.slice(1).map((l) => l.split(/\s{2,}/))).toEqual(
      improved.map((task) => [task.id, '0.000', '1.000', '+1.000']),
    );
    expect(counts).toBe(
      `${EARLY} → ${LATE}: ${improved.length} improved, 0 worse, ${TASK_COUNT - improved.length} unchanged`,
    );
  });

  it('orders the diff by the size of the change, and counts each way', () => {
    const of = (...rewards: number[]) => ({ rewards, failed: 0 });
    const first = new Map([
      ['a', of(1)],
      ['b', of(0, 0)],
      ['c', of(1, 1)],
      ['d', of(1)],
      ['e', { rewards: [], failed: 1 }],
    ]);
    const last = new Map([
      ['a', of(1)],
      ['b', of(1, 0)],
      ['c', of(0, 0)],
      ['d', of(1)],
      ['e', of(1)],
    ]);
    const { changed, counts } = taskDiffs(['a', 'b', 'c', 'd', 'e'], [first, last]);
    expect(changed).toEqual([
      { id: 'c', means: [1, 0], change: -1 },
      { id: 'b', means: [0, 0.5], change: 0.5 },
      { id: 'e', means: [null, 1], change: null },
    ]);
    expect(counts).toEqual({ improved: 1, worse: 1, unchanged: 2, unscored: 1 });
    expect(checkpointStats([of(1, 0), of(0.5), { rewards: [], failed: 2 }], 0.5)).toEqual({
      samples: 5,
      mean: 0.5,
      std: Math.sqrt(1 / 6),
      pass_rate: 2 / 3,
      failed: 2,
    });
  });

  it('--fail-under exits 1 with one line when the last mean is under it, 0 when it is met', async () => {
    const late = (await evalJson()).checkpoints[1]!.mean!;
    const flags = ['eval', '--model', EARLY, '--model', LATE, '--tasks', tasks, '--reward', 'exact'];
    const under = await run([...flags, '--fail-under', String(late + 0.01)]);
    expect(under.code).toBe(1);
    expect(under.stderr.trimEnd().split('\n').at(-1)).toBe(
      `error: ${LATE}: mean reward ${late.toFixed(3)} is under --fail-under ${late + 0.01}`,
    );
    expect(under.stdout).toContain(LATE); // the table is printed all the same
    const met = await run([...flags, '--fail-under', String(late)]);
    expect([met.code, met.stderr]).not.toContain(1);
    expect(met.code).toBe(0);
  });

  // 120 reward commands, each a shell started by aip: a second or two on a quiet machine, past 20 s on
  // a busy one (test/helpers/patience.ts).
  it('counts a sample whose reward command fails as failed, and keeps it out of the mean', {
    timeout: patience(180_000),
  }, async () => {
    const script = join(t.dir, 'score.sh');
    // Every reply scores 1, but the reward of sum-3 cannot be computed.
    writeFileSync(
      script,
      `#!/bin/sh
cat >/dev/null
if [ "$AIP_TASK_ID" = sum-3 ]; then echo 'no scorer for this task' >&2; exit 3; fi
echo 1
`,
      { mode: 0o755 },
    );
    const r = await run([
      'eval',
      '--model',
      EARLY,
      '--model',
      LATE,
      '--tasks',
      tasks,
      '--reward-cmd',
      script,
      '-K',
      '2',
      '--json',
    ]);
    expect(r.code).toBe(0);
    for (const c of (JSON.parse(r.stdout) as EvalDocument).checkpoints)
      expect(c).toMatchObject({ samples: 2 * TASK_COUNT, failed: 2, mean: 1, std: 0, pass_rate: 1 });

    // A reward that fails on every sample scores nothing: exit 1, saying why.
    const failing = join(t.dir, 'fail.sh');
    writeFileSync(failing, '#!/bin/sh\necho broken >&2\nexit 2\n', { mode: 0o755 });
    const none = await run(['eval', '--model', LATE, '--tasks', tasks, '--reward-cmd', failing]);
    expect(none.code).toBe(1);
    expect(none.stderr).toMatch(
      /error: no sample of agent:step4 was scored: sample 0: reward: exit 2: broken/,
    );
  });

  it('stops on Ctrl-C with exit 130, reporting nothing', async () => {
    // Every answer held back 10 s: the first checkpoint cannot be done when Ctrl-C comes, however long
    // a busy machine takes to see the first request (with 200 ms, the first checkpoint could end first).
    await emu.fault({ path: CHAT, delay_ms: 10_000, times: 1000 });
    const signals = new EventEmitter();
    const running = run(['eval', '--model', EARLY, '--model', LATE, '--tasks', tasks, '--reward', 'exact'], {
      signals,
    });
    while ((await emu.requests({ method: 'POST', path: CHAT })).length === 0)
      await new Promise((resolve) => setTimeout(resolve, 20));
    signals.emit('SIGINT');
    const r = await running;
    expect(r.code).toBe(130);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(`Stopped while evaluating ${EARLY} (0 of 2 checkpoints done)`);
  });

  it('refuses bad input before any request: tasks, reward, models, --diff of one', async () => {
    const refused = async (argv: string[], message: RegExp) => {
      const r = await run(argv);
      expect([r.code, r.stderr]).toEqual([2, expect.stringMatching(message)]);
    };
    const bad = join(t.dir, 'bad.jsonl');
    writeFileSync(bad, '{"messages": []}\n');
    await refused(
      ['eval', '--model', LATE, '--tasks', bad, '--reward', 'exact'],
      /1 problem in 1 task; nothing was sampled/,
    );
    const noReference = join(t.dir, 'no-reference.jsonl');
    writeFileSync(noReference, '{"messages": [{"role": "user", "content": "What is 1 + 1?"}]}\n');
    await refused(
      ['eval', '--model', LATE, '--tasks', noReference, '--reward', 'exact'],
      /task 1: --reward exact needs a "reference"/,
    );
    await refused(['eval', '--model', LATE, '--tasks', tasks], /a reward is needed/);
    // The first checkpoint is fine, the second is not a trained model: nothing is sampled from either.
    await refused(
      ['eval', '--model', EARLY, '--model', 'openai/gpt-oss-20b', '--tasks', tasks, '--reward', 'exact'],
      /"openai\/gpt-oss-20b" is not a trained model/,
    );
    await refused(
      [
        'eval',
        '--model',
        LATE,
        '--model',
        'wandb-artifact:///local/demo/agent:step4',
        '--tasks',
        tasks,
        '--reward',
        'exact',
      ],
      /--model agent:step4 and --model wandb-artifact:\/\/\/local\/demo\/agent:step4 are the same checkpoint/,
    );
    await refused(
      ['eval', '--model', LATE, '--tasks', tasks, '--reward', 'exact', '--diff'],
      /--diff compares checkpoints/,
    );
    await refused(['eval', '--tasks', tasks, '--reward', 'exact'], /required option '--model <model>'/);
    expect(await emu.requests({ method: 'POST', path: CHAT })).toHaveLength(0);
  });
});
