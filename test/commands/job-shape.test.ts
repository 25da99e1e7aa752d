// One JSON shape per resource (docs/commands.md, "JSON shapes"): a job is the same object from jobs
// list, jobs get, jobs create (with and without --wait) and jobs wait; models, checkpoints and events
// are as the APIs send them; each has the keys of its documented example. Times are ISO 8601 in JSON
// and piped output.

import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { tempConfigDir, words } from '../helpers/cli.js';
import { useEmulator } from '../helpers/emulator.js';

const t = useEmulator({ runOptions: { sleepCap: 5 } });
const { run } = t;
let file: string;
beforeEach(async () => {
  await run('models create --name agent --base-model OpenPipe/Qwen3-14B-Instruct -q');
  file = join(t.dir, 'groups.jsonl');
  writeFileSync(file, '{"trajectories": [{"reward": 1}, {"reward": 0}]}\n'.repeat(3));
});

const DOCS = readFileSync(new URL('../../docs/commands.md', import.meta.url), 'utf8');

/** The JSON example under "**<title>**" in the JSON shapes section of docs/commands.md. */
function documented(title: string): Record<string, unknown> {
  const section = DOCS.split('## JSON shapes')[1]!.split('\n## ')[0]!;
  const after = section.split(`**${title}**`)[1];
  const block = after && /```json\n([\s\S]*?)\n```/.exec(after);
  if (!block) throw new Error(`no JSON example under **${title}** in docs/commands.md`);
  return JSON.parse(block[1]!);
}

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const isString = (v: unknown) => typeof v === 'string' && v !== '';
const orNull = (check: (v: unknown) => boolean) => (v: unknown) => v === null || check(v);
const isCount = (v: unknown) => Number.isInteger(v) && (v as number) >= 0;

/** The type of each key of a job, as docs/commands.md describes them. */
const JOB_TYPES: Record<string, (v: unknown) => boolean> = {
  id: isString,
  kind: orNull((v) => v === 'rl' || v === 'sft'),
  model_id: orNull(isString),
  model: orNull(isString),
  state: (v) => ['queued', 'running', 'succeeded', 'failed', 'gone', 'unknown'].includes(v as string),
  step: isCount,
  num_sequences: orNull(isCount),
  error_message: orNull((v) => typeof v === 'string'),
  latest_metrics: orNull(
    (v) =>
      typeof v === 'object' && !Array.isArray(v) && Object.values(v!).every((n) => typeof n === 'number'),
  ),
  created_at: orNull((v) => typeof v === 'string' && ISO.test(v)),
};

/** Which documented keys a job printed has, and which of its values are not of their type. */
function jobShape(job: Record<string, unknown>) {
  return {
    keys: Object.keys(job),
    wrong: Object.entries(job)
      .filter(([k, v]) => !JOB_TYPES[k]?.(v))
      .map(([k, v]) => `${k}: ${JSON.stringify(v)}`),
  };
}

async function json(argv: string | string[]): Promise<Record<string, unknown>> {
  const r = await run(argv);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout);
}

describe('one shape per resource', () => {
  it('a job has the same keys, of the same types, from jobs create, wait, get and list', async () => {
    const keys = Object.keys(documented('A job'));
    expect(keys).toEqual(Object.keys(JOB_TYPES));

    const created = await json(words`jobs create rl --model agent --file ${file} --json`);
    const id = created.id as string;
    const waited = await json(['jobs', 'wait', id, '--json', '--interval', '0.01']);
    const got = await json(['jobs', 'get', id, '--json']);
    const listed = (await json('jobs list --json')) as unknown as Array<Record<string, unknown>>;
    const createdWaiting = await json(
      words`jobs create rl --model agent --file ${file} --wait --interval 0.01 --json`,
    );

    const all = { created, waited, got, listed: listed.find((j) => j.id === id)!, createdWaiting };
    for (const [command, job] of Object.entries(all))
      expect([command, jobShape(job)]).toEqual([command, { keys, wrong: [] }]);

    // The same job, finished: the same object whichever command printed it.
    expect(got).toEqual(waited);
    expect(all.listed).toEqual(waited);
    expect(await json(['jobs', 'get', createdWaiting.id as string, '--json'])).toEqual(createdWaiting);
    // Just created, its events unread: queued, and what aip knows of it already.
    expect(created).toEqual({
      ...waited,
      state: 'queued',
      step: 0,
      num_sequences: null,
      error_message: null,
      latest_metrics: null,
    });
    expect(waited).toMatchObject({ kind: 'rl', model: 'local/demo/agent', state: 'succeeded', step: 3 });
  });

  it('a job not created here has the same shape, from what the server says of it', async () => {
    const id = (await run(words`jobs create rl --model agent --file ${file} --wait -q`)).stdout.trim();
    const mine = await json(['jobs', 'get', id, '--json']);
    // Another machine: no local record of the job, nor of its model.
    const elsewhere = { env: { AIP_CONFIG_DIR: tempConfigDir() } };
    for (const argv of [
      ['jobs', 'get', id, '--json'],
      ['jobs', 'wait', id, '--json'],
    ]) {
      const r = await run(argv, elsewhere);
      expect(r.code, r.stderr).toBe(0);
      const job = JSON.parse(r.stdout);
      expect(jobShape(job)).toEqual({ keys: Object.keys(JOB_TYPES), wrong: [] });
      // The model is named by its id; the rest is the server's, in aip's form.
      expect(job).toEqual({ ...mine, model: mine.model_id });
    }
  });

  it('times are ISO 8601 in JSON and when piped, relative on a terminal', async () => {
    const id = (await run(words`jobs create rl --model agent --file ${file} --wait -q`)).stdout.trim();
    const created = (await json(['jobs', 'get', id, '--json'])).created_at as string;
    expect(created).toMatch(ISO);
    expect((await run('jobs list')).stdout.trimEnd().split('\t').at(-1)).toBe(created);
    expect((await run(['jobs', 'get', id])).stdout).toContain(`created\t${created}\n`);
    const tty = await run('jobs list', { stdoutTTY: true, env: { NO_COLOR: '1' } });
    expect(tty.stdout).toMatch(/ just now\n$/);
    const record = JSON.parse(readFileSync(join(t.env.AIP_CONFIG_DIR!, 'jobs.json'), 'utf8'));
    expect(record.jobs[0].created_at).toBe(created);
  });

  it('models, checkpoints and events have the keys of their documented examples, as the APIs send them', async () => {
    const model = await json('models create --name other --base-model OpenPipe/Qwen3-14B-Instruct --json');
    expect(Object.keys(model)).toEqual(Object.keys(documented('A trainable model')));

    const inference = (await json('models list --json')) as unknown as Array<Record<string, unknown>>;
    expect(Object.keys(inference[0]!)).toEqual(Object.keys(documented('An inference model')));
    // Passed through in the API's own form: epoch seconds, as documented.
    expect(inference[0]!.created).toEqual(expect.any(Number));

    const id = (await run(words`jobs create rl --model agent --file ${file} --wait -q`)).stdout.trim();
    const checkpoints = (await json('checkpoints list agent --all --json')) as unknown as Array<
      Record<string, unknown>
    >;
    expect(checkpoints.map((c) => Object.keys(c))).toEqual(
      checkpoints.map(() => Object.keys(documented('A checkpoint'))),
    );
    const events = (await json(['events', id, '--all', '--json'])) as unknown as Array<
      Record<string, unknown>
    >;
    expect(events).toHaveLength(5);
    for (const event of events) expect(Object.keys(event)).toEqual(Object.keys(documented('An event')));
  });
});
