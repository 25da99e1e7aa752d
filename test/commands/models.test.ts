// aip models … against the emulator: list (openai SDK), base, create (and the local record),
// delete (confirmation rules), log (offline validation first).

import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/main.js';
import { runCli, words } from '../helpers/cli.js';
import { useEmulator } from '../helpers/emulator.js';
import { fakeIO } from '../helpers/io.js';
import { waitFor } from '../helpers/wait.js';

const { emu, env, run } = useEmulator();

const BASE = 'OpenPipe/Qwen3-14B-Instruct';

async function create(name: string, extra: string[] = []): Promise<string> {
  const r = await run(['models', 'create', '--name', name, '--base-model', BASE, '-q', ...extra]);
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  return r.stdout.trim();
}

function record(): { models: Array<Record<string, string>> } {
  return JSON.parse(readFileSync(join(env.AIP_CONFIG_DIR!, 'models.json'), 'utf8'));
}

describe('aip models list', () => {
  it('lists the inference models through the SDK, with the project header', async () => {
    const r = await run(['models', 'list'], { env: { NO_COLOR: '1' }, stdoutTTY: true });
    expect(r.code).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^ID +OWNED BY$/);
    expect(lines).toContain('openai/gpt-oss-20b                 system');
    const [request] = await emu.requests({ path: '/inference/v1/models' });
    expect(request?.headers['openai-project']).toBe('local/demo');
    expect(request?.headers.authorization).toBe('Bearer ****cdef');
  });

  it('prints TSV when piped, JSON objects with --json, ids with -q', async () => {
    const piped = await run(['models', 'list']);
    expect(piped.stdout.split('\n')).toContain('deepseek-ai/DeepSeek-V3.1\tsystem');
    const json = JSON.parse((await run(['models', 'list', '--json'])).stdout);
    expect(json[0]).toEqual({
      id: 'meta-llama/Llama-3.1-8B-Instruct',
      object: 'model',
      created: expect.any(Number),
      owned_by: 'system',
      root: 'meta-llama/Llama-3.1-8B-Instruct',
    });
    const quiet = await run(['models', 'list', '-q']);
    expect(quiet.stdout.split('\n')[0]).toBe('meta-llama/Llama-3.1-8B-Instruct');
  });

  it("maps SDK errors to exit codes: 401 → 4, 429 → 6, 503 → 1, with the server's text", async () => {
    const bad = await run(['models', 'list'], { env: { AIP_API_KEY: 'wrong-key-000000000000' } });
    expect(bad.code).toBe(4);
    expect(bad.stderr).toMatch(
      /^error: Authentication failed \(HTTP 401 from GET \/inference\/v1\/models, request id req_\w+\); run 'aip auth login'/,
    );
    await emu.fault({ path: '/inference/v1/models', status: 429, retry_after: 0, times: 5 });
    const limited = await run(['--max-retries', '1', 'models', 'list']);
    expect(limited.code).toBe(6);
    expect(limited.stderr).toContain('Concurrency limit reached for requests');
    expect(await emu.requests({ path: '/inference/v1/models' })).toHaveLength(3);
    await emu.reset();
    await emu.fault({ path: '/inference/v1/models', status: 503, retry_after: 0, times: 5 });
    expect((await run(['--max-retries', '0', 'models', 'list'])).code).toBe(1);
  });

  it('reports an unreachable inference API as a network error (exit 1)', async () => {
    await emu.fault({ path: '/inference/v1/models', drop: true });
    const r = await run(['--max-retries', '0', 'models', 'list']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^error: inference API unreachable: GET \/inference\/v1\/models failed/);
  });
});

describe('aip models base', () => {
  it('lists the trainable base models', async () => {
    const r = await run(['models', 'base']);
    expect(r.stdout).toBe('OpenPipe/Qwen3-14B-Instruct\nQwen/Qwen3-30B-A3B-Instruct-2507\n');
    expect(JSON.parse((await run(['models', 'base', '--json'])).stdout)).toHaveLength(2);
  });

  it('says clearly when the server has no such endpoint (exit 3)', async () => {
    await emu.fault({ path: '/training/v1/preview/base-models', status: 404 });
    const r = await run(['models', 'base']);
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/does not list its trainable base models .*OpenPipe\/Qwen3-14B-Instruct/);
  });
});

describe('aip models create', () => {
  it('creates the model in the project and remembers it', async () => {
    const r = await run(['models', 'create', '--name', 'agent-001', '--base-model', BASE], {
      env: { NO_COLOR: '1' },
      stdoutTTY: true,
    });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(
      /^id {10}[0-9a-f-]{36}\nname {8}local\/demo\/agent-001\nbase model {2}OpenPipe\/Qwen3-14B-Instruct\nrun id {6}\w+\n$/,
    );
    const [post] = await emu.requests({ method: 'POST', path: '/training/v1/preview/models' });
    expect(post?.body).toEqual({
      entity: 'local',
      project: 'demo',
      name: 'agent-001',
      base_model: BASE,
      return_existing: false,
    });
    expect(record().models).toEqual([
      expect.objectContaining({
        entity: 'local',
        project: 'demo',
        name: 'agent-001',
        base_model: BASE,
        base_url: emu.urls.base,
      }),
    ]);
  });

  it('--json prints the model as returned; --return-existing gives the same id', async () => {
    const json = JSON.parse(
      (await run(['models', 'create', '--name', 'm', '--base-model', BASE, '--json'])).stdout,
    );
    expect(Object.keys(json).sort()).toEqual(['base_model', 'entity', 'id', 'name', 'project', 'run_id']);
    expect(await create('m', ['--return-existing'])).toBe(json.id);
    expect(record().models).toHaveLength(1);
  });

  it('explains a duplicate name (409, exit 1) and never sends the create twice', async () => {
    await create('dup');
    const r = await run(['models', 'create', '--name', 'dup', '--base-model', BASE]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /already exists.*\(HTTP 409 .*\); pass --return-existing to get the existing model\n$/,
    );
    expect(await emu.requests({ method: 'POST' })).toHaveLength(2);
  });

  it("needs a project, and rejects an untrainable base model with the server's 422 (exit 2)", async () => {
    const { AIP_PROJECT: _p, ...noProject } = env;
    const none = await runCli(['models', 'create', '--name', 'x', '--base-model', BASE], { env: noProject });
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/^error: no project to create the model in/);
    const bad = await run(['models', 'create', '--name', 'x', '--base-model', 'gpt-2']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/\n {2}base_model: Value error, gpt-2 cannot be trained here/);
  });

  it('is not retried after a 500 or a dropped connection: one model at most', async () => {
    for (const fault of [{ status: 500 }, { drop: true }]) {
      await emu.reset();
      await emu.fault({ method: 'POST', path: '/training/v1/preview/models', ...fault });
      const r = await run(['models', 'create', '--name', 'once', '--base-model', BASE]);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain('not retried');
      expect(await emu.requests({ method: 'POST' })).toHaveLength(1);
      // What to do next (issue 19): the command that finds out, pasted as it is.
      const next = `aip models create --name once --base-model ${BASE} --project local/demo --return-existing`;
      expect(r.stderr).toContain(`; find out, and create it if it was not, with: ${next}\n`);
      const [, ...args] = next.split(' ');
      const check = await run(args);
      expect(check.code).toBe(0);
      expect(await emu.requests({ method: 'POST' })).toHaveLength(2);
    }
  });
});

describe('model names', () => {
  it('resolve by name, project/name or team/project/name; an ambiguous name is a usage error, an unknown one not found', async () => {
    const a = await create('shared');
    const other = await run(words`--project local/other models create --name shared --base-model ${BASE} -q`);
    const c = other.stdout.trim();
    const ids = async (ref: string) => {
      const r = await run(['checkpoints', 'list', ref, '--json']);
      return { code: r.code, stderr: r.stderr };
    };
    expect((await ids('demo/shared')).code).toBe(0);
    expect((await ids('local/other/shared')).code).toBe(0);
    const ambiguous = await ids('shared');
    expect(ambiguous.code).toBe(2);
    expect(ambiguous.stderr).toBe(
      `error: "shared" names 2 models: give team/project/name or the id\n  local/demo/shared  ${a}\n  local/other/shared  ${c}\n`,
    );
    const unknown = await ids('nope');
    expect(unknown.code).toBe(3);
    expect(unknown.stderr).toMatch(
      /^error: unknown model "nope": not a UUID, nor a model created from this machine/,
    );
    // A UUID is taken as is, remembered or not (the server decides).
    const stranger = await ids('11111111-2222-3333-4444-555555555555');
    expect(stranger.code).toBe(3);
    expect(await emu.requests({ path: '/training/v1/preview/models/nope/checkpoints' })).toEqual([]);
  });

  it('are kept per base URL', async () => {
    await create('here');
    const elsewhere = await run(['checkpoints', 'list', 'here'], {
      env: { AIP_BASE_URL: `${emu.origin}/other/v1` },
    });
    expect(elsewhere.code).toBe(3);
    expect(elsewhere.stderr).toMatch(/no model was created from this machine against .*\/other\/v1/);
  });
});

describe('aip models delete', () => {
  it('refuses without --yes when there is no terminal, sending nothing', async () => {
    await create('doomed');
    const r = await run(['models', 'delete', 'doomed']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      'error: refusing to delete the model without --yes: there is no terminal to confirm on\n',
    );
    expect(await emu.requests({ method: 'DELETE' })).toEqual([]);
    const noInput = await run(['--no-input', 'models', 'delete', 'doomed'], { stdinTTY: true });
    expect(noInput.code).toBe(2);
  });

  it('deletes with --yes, forgets the name, and says what went', async () => {
    const id = await create('doomed');
    await emu.control('POST', `/models/${id}/checkpoints`, { count: 3 });
    const r = await run(['models', 'delete', 'doomed', '--yes']);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe(`Deleted model local/demo/doomed (${id}): 4 checkpoints, and its run\n`);
    expect(record().models).toEqual([]);
    const json = await run(['models', 'delete', id, '--yes', '--json']);
    expect(json.code).toBe(3);
    expect(json.stderr).toMatch(new RegExp(`^error: Model ${id} not found \\(HTTP 404`));
  });

  it('asks on a terminal: y deletes, anything else does not', async () => {
    for (const [answer, code] of [
      ['n\r', 2],
      ['y\r', 0],
    ] as const) {
      const id = await create('asked', ['--return-existing']);
      const { io, stdin, stderr } = fakeIO({ env, stdinTTY: true, stderrTTY: true });
      const done = main(['models', 'delete', 'asked'], { env, io });
      await waitFor(() => stderr.text.includes('[y/N]'));
      expect(stderr.text).toContain(
        `Delete model local/demo/asked (${id}), all its checkpoints and its run? [y/N]`,
      );
      stdin.write(answer);
      expect(await done).toBe(code);
      expect(await emu.requests({ method: 'DELETE' })).toHaveLength(code === 0 ? 1 : 0);
    }
  });
});

describe('aip models log', () => {
  const group = (reward: number) => ({
    trajectories: [
      {
        reward,
        messages_and_choices: [
          { role: 'user', content: 'q' },
          { finish_reason: 'stop', index: 0, message: { role: 'assistant', content: 'a' } },
        ],
      },
      { reward: reward / 2 },
    ],
  });

  it('sends the groups of a JSONL file after checking them', async () => {
    const id = await create('logged');
    const file = join(env.AIP_CONFIG_DIR!, 'groups.jsonl');
    writeFileSync(file, `${JSON.stringify(group(1))}\n\n${JSON.stringify(group(0.5))}\r\n`);
    const r = await run(['models', 'log', 'logged', '--split', 'train', '--file', file]);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe(
      `Logged 2 groups (4 trajectories, rewards 0.25 to 1) to split "train" of local/demo/logged (${id})\n`,
    );
    const logs = (await emu.control('GET', '/logs')).body as {
      data: Array<{ split: string; trajectory_groups: unknown[] }>;
    };
    expect(logs.data[0]).toMatchObject({ split: 'train', trajectory_groups: [group(1), group(0.5)] });
  });

  it('logs to a split it does not know, saying so (issue 19)', async () => {
    await create('logged');
    const r = await run(['models', 'log', 'logged', '--split', 'bogus', '--file', '-', '--json'], {
      stdin: JSON.stringify([group(1)]),
    });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('warning: --split "bogus" is not train, val, test: logging to it as given\n');
    expect(JSON.parse(r.stdout)).toMatchObject({ split: 'bogus', groups: 1 });
    const quiet = await run(['models', 'log', 'logged', '--split', 'val', '--file', '-', '--json'], {
      stdin: JSON.stringify([group(1)]),
    });
    expect(quiet.stderr).toBe('');
  });

  it("reads a JSON array from stdin, and prints the server's answer with --json", async () => {
    await create('logged');
    const r = await run(['models', 'log', 'logged', '--split', 'val', '--file', '-', '--json'], {
      stdin: JSON.stringify([group(1)], null, 2),
    });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ split: 'val', groups: 1, trajectories: 2 });
  });

  it('reports every problem with file:line: path and sends nothing (exit 2)', async () => {
    await create('logged');
    const file = join(env.AIP_CONFIG_DIR!, 'bad.jsonl');
    writeFileSync(
      file,
      [
        JSON.stringify(group(1)),
        '{"trajectories": [{"reward": "high"}]}',
        'not json',
        '{"trajectories": [{"messages_and_choices": [{"role": "robot"}]}]}',
      ].join('\n'),
    );
    const r = await run(['models', 'log', 'logged', '--split', 'train', '--file', file]);
    expect(r.code).toBe(2);
    expect(r.stderr.split('\n')).toEqual([
      `${file}:2: trajectories[0].reward: Input should be a valid number, not the string "high"`,
      `${file}:3: invalid JSON: unexpected "n": expected a value`,
      `${file}:4: trajectories[0].messages_and_choices[0].role: Input should be 'developer', 'system', 'user', 'assistant', 'tool' or 'function', not the string "robot"`,
      `error: ${file}: 3 problems in 4 trajectory groups; nothing was sent`,
      '',
    ]);
    expect((await emu.control('GET', '/logs')).body).toEqual({ data: [] });
  });

  it('refuses a missing file, an empty file, and an empty split before anything is sent', async () => {
    await create('logged');
    const missing = await run('models log logged --split train --file /nonexistent/g.jsonl');
    expect(missing).toMatchObject({
      code: 2,
      stderr: 'error: cannot read /nonexistent/g.jsonl: no such file\n',
    });
    const empty = await run(['models', 'log', 'logged', '--split', 'train', '--file', '-'], {
      stdin: '\n\n',
    });
    expect(empty.code).toBe(2);
    expect(empty.stderr).toContain('stdin:1: no trajectory groups: the file is empty');
    const noSplit = await run(['models', 'log', 'logged', '--split', ' ', '--file', '-'], { stdin: '{}' });
    expect(noSplit.code).toBe(2);
    expect((await emu.requests()).filter((r) => r.path.endsWith('/log'))).toEqual([]);
  });
});

describe('the model record under stress', () => {
  it('keeps every model when creates run in parallel (the write is locked)', async () => {
    const names = ['p1', 'p2', 'p3', 'p4', 'p5', 'p6'];
    const results = await Promise.all(
      names.map((name) => run(['models', 'create', '--name', name, '--base-model', BASE, '-q'])),
    );
    expect(results.map((r) => r.code)).toEqual([0, 0, 0, 0, 0, 0]);
    expect(
      record()
        .models.map((m) => m.name)
        .sort(),
    ).toEqual(names);
  });

  it('is read before the create: a corrupt record stops it before anything is sent', async () => {
    writeFileSync(join(env.AIP_CONFIG_DIR!, 'models.json'), '{"models": [');
    const r = await run(['models', 'create', '--name', 'x', '--base-model', BASE]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/models\.json is not valid JSON: fix it by hand or delete it/);
    expect(await emu.requests({ method: 'POST' })).toEqual([]);
  });

  it('forgets a model deleted by its upper-case UUID', async () => {
    const id = await create('shout');
    const r = await run(['models', 'delete', id.toUpperCase(), '--yes']);
    expect(r.code).toBe(0);
    expect(record().models).toEqual([]);
  });
});

describe('answers lost on the way back', () => {
  it('a model delete whose answer was cut is retried, and the 404 of the retry counts as done', async () => {
    const id = await create('cut');
    await emu.fault({ method: 'DELETE', path: `/training/v1/preview/models/${id}`, cut_after_bytes: 5 });
    const r = await run(['models', 'delete', 'cut', '--yes']);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(
      'warning: the request was sent 2 times and the model is gone: an earlier attempt deleted it',
    );
    expect((await emu.requests({ method: 'DELETE' })).map((q) => q.status)).toEqual([200, 404]);
    expect(record().models).toEqual([]);
  });

  it('the model list is fetched again when its body is cut short (through the SDK)', async () => {
    await emu.fault({ path: '/inference/v1/models', cut_after_bytes: 40 });
    const r = await run(['models', 'list', '-q']);
    expect(r.code).toBe(0);
    expect(r.stdout.split('\n')).toContain('openai/gpt-oss-20b');
    expect(await emu.requests({ path: '/inference/v1/models' })).toHaveLength(2);
    await emu.fault({ path: '/inference/v1/models', cut_after_bytes: 40 });
    const once = await run(['--max-retries', '0', 'models', 'list']);
    expect(once.code).toBe(1);
    expect(once.stderr).toMatch(
      /^error: inference API unreachable: GET \/inference\/v1\/models failed \(ECONNRESET\)\n$/,
    );
  });
});
