// A remembered name whose id the server no longer knows (the emulator restarted: emu.reset()) says so,
// with the command that forgets it (exit 3), for every command that takes a model name or a job id
// prefix; a UUID given as is keeps the server's own 404. And `aip models forget` / `aip jobs forget`:
// by name or id, --all (confirmed), --stale (asks the server), never sending anything that changes it.

import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { main } from '../../src/main.js';
import { useEmulator } from '../helpers/emulator.js';
import { fakeIO } from '../helpers/io.js';
import { waitFor } from '../helpers/wait.js';

// run() polls at the emulator's pace (sleepCap) without slowing the suite.
const t = useEmulator({ runOptions: { sleepCap: 5 } });
const { emu, env, run } = t;
let base: string;
beforeEach(() => {
  base = emu.urls.base;
});

const BASE_MODEL = 'OpenPipe/Qwen3-14B-Instruct';

async function createModel(name: string, checkpoints = 0): Promise<string> {
  const r = await run(['models', 'create', '--name', name, '--base-model', BASE_MODEL, '-q']);
  expect(r.code, r.stderr).toBe(0);
  const id = r.stdout.trim();
  if (checkpoints > 0) await emu.control('POST', `/models/${id}/checkpoints`, { count: checkpoints });
  return id;
}

function groupsFile(): string {
  const file = join(t.dir, 'groups.jsonl');
  const group = { trajectories: [{ reward: 1, messages_and_choices: [{ role: 'user', content: 'q' }] }] };
  writeFileSync(file, `${JSON.stringify(group)}\n${JSON.stringify(group)}\n`);
  return file;
}

async function createJob(model: string): Promise<string> {
  const r = await run(['jobs', 'create', 'rl', '--model', model, '--file', groupsFile(), '-q']);
  expect(r.code, r.stderr).toBe(0);
  return r.stdout.trim();
}

const models = (): Array<Record<string, string>> =>
  JSON.parse(readFileSync(join(t.dir, 'models.json'), 'utf8')).models;
const jobs = (): Array<Record<string, string>> =>
  JSON.parse(readFileSync(join(t.dir, 'jobs.json'), 'utf8')).jobs;
const literal = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The one line a stale model name gives. */
function staleModel(name: string, id: string, ref = name): RegExp {
  return new RegExp(
    `^error: model local/demo/${name} \\(id ${id}\\) no longer exists on ${literal(base)} \\(HTTP 404, request id req_\\w+\\); forget it with aip models forget ${literal(ref)}\\n$`,
  );
}

function staleJob(id: string, ref: string): RegExp {
  return new RegExp(
    `^error: job ${id} \\(rl, model local/demo/agent\\) no longer exists on ${literal(base)} \\(HTTP 404, request id req_\\w+\\); forget it with aip jobs forget ${ref}\\n$`,
  );
}

describe('a remembered model name the server no longer knows', () => {
  it('checkpoints list says so and how to forget it (exit 3); the UUID keeps the server’s 404', async () => {
    const id = await createModel('agent', 3);
    await emu.reset();
    const r = await run(['checkpoints', 'list', 'agent']);
    expect(r.code).toBe(3);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(staleModel('agent', id));
    // However the name was given, the hint repeats it, and the --profile/--base-url in use.
    const full = await run(['--base-url', base, 'checkpoints', 'list', 'local/demo/agent', '--all']);
    expect(full.code).toBe(3);
    expect(full.stderr).toMatch(
      new RegExp(`; forget it with aip --base-url ${literal(base)} models forget local/demo/agent\\n$`),
    );
    const byId = await run(['checkpoints', 'list', id]);
    expect(byId.code).toBe(3);
    expect(byId.stderr).toMatch(
      new RegExp(
        `^error: Model ${id} not found \\(HTTP 404 from GET /training/v1/preview/models/${id}/checkpoints`,
      ),
    );
    expect(byId.stderr).not.toContain('forget');
  });

  it('checkpoints delete and prune, and models log, say so too', async () => {
    const id = await createModel('agent', 3);
    await emu.reset();
    for (const args of [
      ['checkpoints', 'delete', 'agent', '--steps', '1', '--yes'],
      ['checkpoints', 'prune', 'agent', '--keep-last', '1', '--yes'],
      ['models', 'log', 'agent', '--split', 'train', '--file', groupsFile()],
    ]) {
      const r = await run(args);
      expect(r.code, args.join(' ')).toBe(3);
      expect(r.stderr, args.join(' ')).toMatch(staleModel('agent', id));
    }
  });

  it('jobs create rl --model NAME says so, and creates nothing', async () => {
    const id = await createModel('agent');
    await emu.reset();
    const r = await run(['jobs', 'create', 'rl', '--model', 'agent', '--file', groupsFile()]);
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(staleModel('agent', id));
    expect(await emu.requests({ method: 'POST', path: '/training/v1/preview/training-jobs' })).toHaveLength(
      1,
    );
    const byId = await run(['jobs', 'create', 'rl', '--model', id, '--file', groupsFile()]);
    expect(byId.code).toBe(3);
    expect(byId.stderr).toMatch(new RegExp(`^error: Model ${id} not found \\(HTTP 404 from POST`));
  });

  it('chat -m NAME:stepN on the Training API says so; a step the model lacks keeps the server’s 404', async () => {
    const id = await createModel('agent', 2);
    const missingStep = await run(['chat', '-m', 'agent:step9', 'hi']);
    expect(missingStep.code).toBe(3);
    expect(missingStep.stderr).toMatch(
      /^error: Model wandb-artifact:\/\/\/local\/demo\/agent:step9 not found \(HTTP 404 from POST \/training\/v1\/chat\/completions/,
    );
    await emu.reset();
    const r = await run(['chat', '-m', 'agent:step1', 'hi']);
    expect(r.code).toBe(3);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(staleModel('agent', id));
    const byArtifact = await run(['chat', '-m', 'wandb-artifact:///local/demo/agent:step1', 'hi']);
    expect(byArtifact.code).toBe(3);
    expect(byArtifact.stderr).toMatch(
      /^error: Model wandb-artifact:\/\/\/local\/demo\/agent:step1 not found/,
    );
  });

  it('models delete NAME says so and forgets the name itself; by UUID the server’s 404 stays', async () => {
    const id = await createModel('agent');
    await emu.reset();
    const r = await run(['models', 'delete', 'agent', '--yes']);
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(
      new RegExp(
        `^error: model local/demo/agent \\(id ${id}\\) no longer exists on ${literal(base)} \\(HTTP 404, request id req_\\w+\\); its name is forgotten\\n$`,
      ),
    );
    expect(models()).toEqual([]);
    const other = await createModel('other');
    await emu.reset();
    const byId = await run(['models', 'delete', other, '--yes']);
    expect(byId.code).toBe(3);
    expect(byId.stderr).toMatch(new RegExp(`^error: Model ${other} not found \\(HTTP 404 from DELETE`));
    expect(models()).toEqual([]);
  });
});

describe('a remembered job the server no longer knows', () => {
  it('jobs get, events and jobs wait by its start say so (exit 3); by its whole id, the server’s 404', async () => {
    await createModel('agent');
    const job = await createJob('agent');
    await emu.reset();
    const prefix = job.slice(0, 8);
    for (const args of [
      ['jobs', 'get', prefix],
      ['events', prefix],
      ['events', prefix, '--all'],
      ['events', prefix, '--follow'],
      ['jobs', 'wait', prefix],
    ]) {
      const r = await run(args);
      expect(r.code, args.join(' ')).toBe(3);
      expect(r.stderr, args.join(' ')).toMatch(staleJob(job, prefix));
    }
    const byId = await run(['jobs', 'get', job]);
    expect(byId.code).toBe(3);
    expect(byId.stderr).toMatch(new RegExp(`^error: Training job ${job} not found \\(HTTP 404`));
  });
});

describe('aip models forget', () => {
  it('by name or by id: the ids on stdout, a summary on stderr, nothing sent; the name no longer resolves', async () => {
    const a = await createModel('alpha');
    const b = await createModel('beta');
    const c = await createModel('gamma');
    const before = (await emu.requests()).length;
    const r = await run(['models', 'forget', 'alpha', b]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`${a}\n${b}\n`);
    expect(r.stderr).toBe(
      `Forgot 2 models remembered for ${base}: local/demo/alpha (${a}), local/demo/beta (${b})\n`,
    );
    expect(models().map((m) => m.id)).toEqual([c]);
    expect(await emu.requests()).toHaveLength(before);
    const gone = await run(['checkpoints', 'list', 'alpha']);
    expect(gone.code).toBe(3);
    expect(gone.stderr).toMatch(
      /^error: unknown model "alpha": not a UUID, nor a model created from this machine/,
    );
    // The model is still on the server: by its id it is still there.
    expect((await run(['checkpoints', 'list', a])).code).toBe(0);
    const json = await run(['models', 'forget', 'gamma', '--json']);
    expect(JSON.parse(json.stdout)).toEqual([
      expect.objectContaining({ id: c, entity: 'local', project: 'demo', name: 'gamma', base_url: base }),
    ]);
  });

  it('an unknown name, or an id not remembered, is exit 3 and forgets nothing', async () => {
    const a = await createModel('alpha');
    const unknown = await run(['models', 'forget', 'alpha', 'nope']);
    expect(unknown.code).toBe(3);
    expect(unknown.stdout).toBe('');
    expect(unknown.stderr).toMatch(/^error: unknown model "nope"/);
    const notRemembered = await run(['models', 'forget', '99999999-9999-4999-8999-999999999999']);
    expect(notRemembered.code).toBe(3);
    expect(notRemembered.stderr).toBe(
      `error: model 99999999-9999-4999-8999-999999999999 is not remembered for ${base}: nothing to forget (aip forgets only what it remembers)\n`,
    );
    expect(models().map((m) => m.id)).toEqual([a]);
    const nothing = await run(['models', 'forget']);
    expect(nothing.code).toBe(2);
    expect(nothing.stderr).toBe('error: say what to forget: models by name or id, --all, or --stale\n');
    const both = await run(['models', 'forget', 'alpha', '--all', '--yes']);
    expect(both.code).toBe(2);
    expect(models().map((m) => m.id)).toEqual([a]);
  });

  it('--all needs --yes off a terminal, asks on one, and forgets only this base URL’s', async () => {
    const a = await createModel('alpha');
    const b = await createModel('beta');
    const elsewhere = { ...env, AIP_BASE_URL: `${emu.origin}/other/v1` };
    const refused = await run(['models', 'forget', '--all']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toBe(
      'error: refusing to forget every remembered model without --yes: there is no terminal to confirm on\n',
    );
    expect(models()).toHaveLength(2);
    // Another base URL remembers nothing: nothing to do, nothing asked.
    const other = await run(['models', 'forget', '--all'], { env: elsewhere });
    expect(other.code).toBe(0);
    expect(other.stderr).toBe(`No models are remembered for ${emu.origin}/other/v1: nothing to forget\n`);

    const { io, stdin, stderr } = fakeIO({ env, stdinTTY: true, stderrTTY: true });
    const asked = main(['models', 'forget', '--all'], { env, io });
    await waitFor(() => stderr.text.includes('[y/N]'));
    expect(stderr.text).toContain(
      `Forget all 2 models remembered for ${base}? (The server is not asked; they stay there.) [y/N]`,
    );
    stdin.write('n\r');
    expect(await asked).toBe(2);
    expect(models()).toHaveLength(2);

    const r = await run(['models', 'forget', '--all', '--yes']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`${a}\n${b}\n`);
    expect(models()).toEqual([]);
  });

  it('--stale forgets only the models the server no longer knows', async () => {
    const old = await createModel('old');
    await emu.reset();
    const fresh = await createModel('fresh');
    const r = await run(['models', 'forget', '--stale']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`${old}\n`);
    expect(r.stderr).toBe(
      `Forgot 1 model remembered for ${base} (the server no longer knows it): local/demo/old (${old})\n`,
    );
    expect(models().map((m) => m.id)).toEqual([fresh]);
    const checks = await emu.requests({ method: 'GET' });
    expect(checks.map((c) => c.path).sort()).toEqual(
      [old, fresh].map((id) => `/training/v1/preview/models/${id}/checkpoints`).sort(),
    );
    const again = await run(['models', 'forget', '--stale']);
    expect(again.code).toBe(0);
    expect(again.stdout).toBe('');
    expect(again.stderr).toBe(`All 1 remembered model still exist on ${base}: nothing to forget\n`);
    // A forgotten name is gone, as if never created: the stale message no longer applies.
    const unknown = await run(['checkpoints', 'list', 'old']);
    expect(unknown.code).toBe(3);
    expect(unknown.stderr).toMatch(/^error: unknown model "old"/);
  });

  it('--stale stops at a check it cannot make (no key: exit 4), forgetting nothing', async () => {
    await createModel('old');
    await emu.reset();
    const r = await run(['models', 'forget', '--stale'], { env: { ...env, AIP_API_KEY: '' } });
    expect(r.code).toBe(4);
    expect(models()).toHaveLength(1);
  });
});

describe('aip jobs forget', () => {
  it('by the start of an id or the whole id; an unknown one is exit 3; --all with --yes', async () => {
    await createModel('agent');
    const one = await createJob('agent');
    const two = await createJob('agent');
    const three = await createJob('agent');
    const r = await run(['jobs', 'forget', one.slice(0, 6), two]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`${one}\n${two}\n`);
    expect(r.stderr).toBe(
      `Forgot 2 jobs remembered for ${base}: ${one} (rl, local/demo/agent), ${two} (rl, local/demo/agent)\n`,
    );
    expect(jobs().map((j) => j.id)).toEqual([three]);
    const gone = await run(['jobs', 'get', one.slice(0, 6)]);
    expect(gone.code).toBe(3);
    expect(gone.stderr).toMatch(/^error: unknown job/);
    const unknown = await run(['jobs', 'forget', 'ffffffff']);
    expect(unknown.code).toBe(3);
    expect(unknown.stderr).toMatch(/^error: unknown job "ffffffff"/);
    expect((await run(['jobs', 'forget', '--all'])).code).toBe(2);
    expect(jobs()).toHaveLength(1);
    const all = await run(['jobs', 'forget', '--all', '--yes', '--json']);
    expect(all.code).toBe(0);
    expect(JSON.parse(all.stdout)).toEqual([expect.objectContaining({ id: three, kind: 'rl' })]);
    expect(jobs()).toEqual([]);
  });

  it('--stale forgets only the jobs the server no longer knows', async () => {
    await createModel('agent');
    const before = [await createJob('agent'), await createJob('agent')];
    await emu.reset();
    await createModel('agent');
    // Ids are never reused: the new job is a third entry beside the two the server lost.
    const fresh = await createJob('agent');
    expect(
      jobs()
        .map((j) => j.id)
        .sort(),
    ).toEqual([...before, fresh].sort());
    const r = await run(['jobs', 'forget', '--stale']);
    expect(r.code).toBe(0);
    expect(r.stdout.split('\n').filter(Boolean).sort()).toEqual([...before].sort());
    expect(r.stderr).toMatch(
      new RegExp(
        `^Forgot 2 jobs remembered for ${base.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} \\(the server no longer knows them\\): `,
      ),
    );
    expect(jobs().map((j) => j.id)).toEqual([fresh]);
  });
});
