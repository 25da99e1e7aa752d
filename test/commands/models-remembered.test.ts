// aip models list --remembered (issue 28): the trainable models created from this machine against this
// base URL, newest first, from the local record alone (the Training API cannot list them), as a table,
// --json, --jsonl, --jq or ids; and the hint that names it.

import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useEmulator } from '../helpers/emulator.js';

const t = useEmulator();
const { emu, env, run } = t;
const BASE = 'OpenPipe/Qwen3-14B-Instruct';

async function create(name: string): Promise<string> {
  const r = await run(['models', 'create', '--name', name, '--base-model', BASE, '-q']);
  expect(r.code, r.stderr).toBe(0);
  return r.stdout.trim();
}

describe('aip models list --remembered', () => {
  it('lists the models created here, newest first, in every output form, asking the server nothing', async () => {
    const empty = await run(['models', 'list', '--remembered', '--json']);
    expect([empty.code, empty.stdout]).toEqual([0, '[]\n']);
    const first = await create('agent');
    const second = await create('other');
    // A model remembered against another base URL is not this one's.
    const file = join(env.AIP_CONFIG_DIR!, 'models.json');
    const record = JSON.parse(readFileSync(file, 'utf8'));
    record.models.push({ ...record.models[0], id: 'elsewhere', base_url: 'https://api.example.com/v1' });
    writeFileSync(file, JSON.stringify(record));
    const before = (await emu.requests({})).length;

    const piped = await run(['models', 'list', '--remembered']);
    expect(piped.code, piped.stderr).toBe(0);
    expect(piped.stdout.trimEnd().split('\n')).toEqual([
      expect.stringMatching(new RegExp(`^local/demo/other\\t${second}\\t${BASE}\\t\\d{4}-\\d\\d-\\d\\dT`)),
      expect.stringMatching(new RegExp(`^local/demo/agent\\t${first}\\t${BASE}\\t\\d{4}-`)),
    ]);
    const tty = await run(['models', 'list', '--remembered'], { env: { NO_COLOR: '1' }, stdoutTTY: true });
    expect(tty.stdout.split('\n')[0]).toMatch(/^NAME +ID +BASE MODEL +CREATED$/);

    const json = JSON.parse((await run(['models', 'list', '--remembered', '--json'])).stdout);
    expect(json).toEqual([
      {
        id: second,
        name: 'local/demo/other',
        entity: 'local',
        project: 'demo',
        base_model: BASE,
        created_at: expect.any(String),
      },
      expect.objectContaining({ id: first, name: 'local/demo/agent' }),
    ]);
    const jsonl = (await run(['models', 'list', '--remembered', '--jsonl'])).stdout.trimEnd().split('\n');
    expect(jsonl.map((line) => JSON.parse(line).id)).toEqual([second, first]);
    expect((await run(['models', 'list', '--remembered', '--jq', '.[].name'])).stdout).toBe(
      'local/demo/other\nlocal/demo/agent\n',
    );
    expect((await run(['models', 'list', '--remembered', '-q'])).stdout).toBe(`${second}\n${first}\n`);
    expect((await emu.requests({})).length).toBe(before);
  });

  it('is the command the hint of a model that is not a trained one names', async () => {
    await create('agent');
    const tasks = join(t.dir, 'tasks.jsonl');
    writeFileSync(
      tasks,
      `${JSON.stringify({ messages: [{ role: 'user', content: 'hi' }], reference: 'x' })}\n`,
    );
    const r = await run(['rollouts', '--model', 'openai/gpt-oss-20b', '--tasks', tasks, '--reward', 'exact']);
    expect(r.code).toBe(2);
    const named = /created here \((aip [^)]*)\)/.exec(r.stderr)?.[1];
    expect(named, r.stderr).toBe('aip models list --remembered');
    const listed = await run(named!.split(' ').slice(1));
    expect([listed.code, listed.stdout]).toEqual([0, expect.stringMatching(/^local\/demo\/agent\t/)]);
  });
});
