// aip against servers that answer as the contract allows but not as aip first assumed: a Training API
// that answers a request to stream with one JSON completion (its published document knows no other
// answer) and one that streams; a system-check body of unknown shape; a job whose events cannot all be
// read; an empty cursor handed back by an empty page.

import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type RunOptions, runCli, tempConfigDir } from '../helpers/cli.js';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator.js';

let emu: TestEmulator;
let streaming: TestEmulator;
beforeAll(async () => {
  [emu, streaming] = await Promise.all([
    startTestEmulator(),
    startTestEmulator({ trainingChatStream: true }),
  ]);
});
afterAll(async () => {
  await Promise.all([emu.close(), streaming.close()]);
});
beforeEach(() => Promise.all([emu.reset(), streaming.reset()]));

const envOf = (target: TestEmulator) => ({
  ...target.env,
  AIP_CONFIG_DIR: tempConfigDir(),
  AIP_PROJECT: 'local/demo',
  NO_COLOR: '1',
});

/** A model created through aip (so that its name is remembered), with checkpoints 1…steps. */
async function trainedModel(target: TestEmulator, env: Record<string, string>, steps = 2): Promise<void> {
  const argv = ['models', 'create', '--name', 'agent', '--base-model', 'OpenPipe/Qwen3-14B-Instruct', '-q'];
  const created = await runCli(argv, { env });
  expect(created.code).toBe(0);
  await target.control('POST', `/models/${created.stdout.trim()}/checkpoints`, { count: steps });
}

/** An SFT job of the model `agent` (of `steps` steps), created through aip: its id. */
async function sftJob(env: Record<string, string>, options: { steps?: number; wait?: boolean } = {}) {
  if (options.steps !== undefined) await emu.control('POST', '/job-plans', { steps: options.steps });
  const argv = [
    'jobs',
    'create',
    'sft',
    '--model',
    'agent',
    '--data-url',
    'wandb-artifact:///local/demo/d:v0',
    '-q',
  ];
  const created = await runCli(options.wait ? [...argv, '--wait', '--interval', '0.01'] : argv, {
    env,
    sleepCap: 5,
  });
  expect(created.code).toBe(0);
  return created.stdout.trim();
}

async function replyOf(target: TestEmulator, model: string, content: string): Promise<string> {
  const res = await fetch(`${target.urls.base}/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${target.key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model, messages: [{ role: 'user', content }] }),
  });
  const body = (await res.json()) as { choices: Array<{ message: { content: string } }> };
  return body.choices[0]!.message.content;
}

describe('aip chat on the Training API, streamed or not', () => {
  for (const [name, target] of [
    ['a server that answers JSON to a request to stream (the published contract)', () => emu],
    ['a server that streams', () => streaming],
  ] as const) {
    it(`prints the reply on a terminal: ${name}`, async () => {
      const server = target();
      const env = envOf(server);
      await trainedModel(server, env);
      const tty: RunOptions = { env, stdoutTTY: true, stdinTTY: true };
      const r = await runCli(['chat', '--api', 'training', '-m', 'agent:step2', '--usage', 'hi'], tty);
      expect([r.code, r.stderr.replace(/\d+/g, 'N')]).toEqual([
        0,
        'usage: N prompt + N completion = N tokens\n',
      ]);
      const expected = await replyOf(server, 'wandb-artifact:///local/demo/agent:step2', 'hi');
      expect(r.stdout).toBe(`${expected}\n`);
      const [request] = await server.requests({ method: 'POST', path: '/training/v1/chat/completions' });
      expect(request!.body).toMatchObject({ stream: true });
      // Not streamed (piped), and --json, give the same text and the completion.
      const piped = await runCli(['chat', '--api', 'training', '-m', 'agent:step2', 'hi'], { env });
      expect(piped).toMatchObject({ code: 0, stdout: `${expected}\n` });
      const json = await runCli(['chat', '-m', 'agent:step2', '--json', '-o', 'logprobs=true', 'hi'], {
        env,
      });
      const completion = JSON.parse(json.stdout);
      expect(completion.choices[0].message.content).toBe(expected);
      expect(completion.choices[0].logprobs.content.map((t: { token: string }) => t.token).join('')).toBe(
        expected,
      );
    });
  }
});

describe('aip system-check with a body of unknown shape', () => {
  for (const body of [null, { status: 'ok' }, ['api'], 'fine']) {
    it(`shows ${JSON.stringify(body)} as it came, with a note, exit 0 on a 200`, async () => {
      const fault = typeof body === 'string' ? { raw_body: body, content_type: 'text/plain' } : { body };
      await emu.fault({ path: '/training/v1/system-check', status: 200, ...fault });
      const r = await runCli(['system-check'], { env: envOf(emu) });
      expect(r.code).toBe(0);
      expect(r.stdout).toBe(typeof body === 'string' ? `${body}\n` : `${JSON.stringify(body, null, 2)}\n`);
      expect(r.stderr).toMatch(
        /^warning: the answer of GET \/system-check is not in a shape aip knows .*\(HTTP 200\)\n$/,
      );
    });
  }

  it('a 503 of unknown shape is shown and fails; a known shape with extra keys names them', async () => {
    await emu.fault({ path: '/training/v1/system-check', status: 503, body: { status: 'degraded' } });
    const failed = await runCli(['system-check'], { env: envOf(emu) });
    expect(failed.code).toBe(1);
    expect(failed.stdout).toBe(`${JSON.stringify({ status: 'degraded' }, null, 2)}\n`);
    expect(failed.stderr).toMatch(/\nerror: system check failed \(HTTP 503\)\n$/);
    await emu.fault({
      path: '/training/v1/system-check',
      status: 200,
      body: { api: true, database: { success: true }, version: '1.2.3' },
    });
    const mixed = await runCli(['system-check'], { env: envOf(emu) });
    expect(mixed.code).toBe(0);
    expect(mixed.stdout).toBe('api\tok\t\t\ndatabase\tok\t\t\n');
    expect(mixed.stderr).toBe('also in the answer (not components): version; --json shows them\n');
  });

  it('a 2xx other than 200 is an answer too', async () => {
    await emu.fault({ path: '/training/v1/system-check', status: 203, body: { api: true } });
    const r = await runCli(['system-check'], { env: envOf(emu) });
    expect(r).toMatchObject({ code: 0, stdout: 'api\tok\t\t\n' });
  });
});

describe('aip jobs get when the events cannot all be read', () => {
  it('shows the job and the state of the events it read, warns, and exits with the failure', async () => {
    const env = envOf(emu);
    await trainedModel(emu, env, 0);
    // 150 steps: 152 events, two pages of at most 100.
    const id = await sftJob(env, { steps: 150, wait: true });
    const events = '/training/v1/preview/training-jobs/*/events';
    // The first page reads; the second fails (no retries).
    await emu.fault({ path: events, status: 500, skip: 1 });
    const partial = await runCli(['--max-retries', '0', 'jobs', 'get', id], { env });
    expect(partial.code).toBe(1);
    expect(partial.stdout).toMatch(
      new RegExp(
        `^id\\t${id}\\nstate\\trunning 99/150 \\(as of 100 events; the rest could not be read\\)\\nkind\\tsft\\n`,
      ),
    );
    expect(partial.stderr).toMatch(
      /^warning: the job's events could not all be read: its state is as of the first 100\nerror: The server had an error .*HTTP 500/,
    );
    await emu.fault({ path: events, status: 429, times: 1 });
    const json = await runCli(['--max-retries', '0', 'jobs', 'get', id, '--json'], { env });
    expect(json.code).toBe(6);
    // The job as far as its events were read (none): the exit code says the rest is missing.
    expect(JSON.parse(json.stdout)).toMatchObject({ id, kind: 'sft', state: 'queued', step: 0 });
    const whole = await runCli(['jobs', 'get', id, '--json'], { env });
    expect(JSON.parse(whole.stdout)).toMatchObject({ id, state: 'succeeded', step: 150 });
  });
});

describe('cursors', () => {
  it('an empty last_id from an empty page is never sent back as after=', async () => {
    const env = envOf(emu);
    await trainedModel(emu, env, 0);
    const id = await sftJob(env, { steps: 2 });
    await runCli(['events', id, '--follow', '--interval', '0.01'], { env, sleepCap: 5 });
    await runCli(['events', id, '--all'], { env });
    const sent = await emu.requests({ path: `/training/v1/preview/training-jobs/${id}/events` });
    expect(sent.length).toBeGreaterThan(1);
    expect(sent.filter((r) => r.query.after === '')).toEqual([]);
  });
});

describe('replies and pages the document allows but aip did not expect (found by the Prism mock)', () => {
  it('a reply with no text is an error that says so, streamed or not, on either API', async () => {
    const env = envOf(emu);
    await trainedModel(emu, env);
    const body = {
      id: 'x',
      object: 'chat.completion',
      choices: [{ index: 0, message: { role: 'assistant', content: null }, finish_reason: 'tool_calls' }],
    };
    for (const [api, model, tty] of [
      ['training', 'agent:step2', true],
      ['training', 'agent:step2', false],
      ['inference', 'openai/gpt-oss-20b', false],
    ] as const) {
      await emu.fault({ path: `/${api}/v1/chat/completions`, status: 200, body });
      const r = await runCli(['chat', '--api', api, '-m', model, 'hi'], { env, stdoutTTY: tty });
      expect([api, tty, r.code, r.stdout, r.stderr]).toEqual([
        api,
        tty,
        1,
        '',
        'error: the reply has no text (finish_reason: tool_calls); --json shows the whole answer\n',
      ]);
    }
    await emu.fault({ path: '/inference/v1/chat/completions', status: 200, body });
    const json = await runCli(['chat', '-m', 'openai/gpt-oss-20b', '--json', 'hi'], { env });
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual(body);
  });

  it('events --follow shows each event once when the server sends a page again, and waits between', async () => {
    const env = envOf(emu);
    await trainedModel(emu, env, 0);
    const id = await sftJob(env, { steps: 2, wait: true });
    const [repeated] = JSON.parse((await runCli(['events', id, '--json'], { env })).stdout);
    await emu.fault({
      path: '/training/v1/preview/training-jobs/*/events',
      status: 200,
      body: { object: 'list', data: [repeated], first_id: repeated.id, last_id: repeated.id, has_more: true },
      times: 3,
    });
    const r = await runCli(['events', id, '--follow', '--interval', '0.05'], { env, sleepCap: 5 });
    expect(r.code).toBe(0);
    const lines = r.stdout.trim().split('\n');
    expect(lines.filter((line) => line.includes(repeated.id))).toHaveLength(1);
    expect(lines.at(-1)).toMatch(/^training_ended\t/);
    expect(r.stderr).toBe(
      `warning: the server sent again 1 event(s) already shown (after=${repeated.id}); they are skipped\n`,
    );
    // Each page that brought nothing new was followed by a pause, though it said there was more.
    expect(r.sleeps.filter((ms) => ms === 50).length).toBeGreaterThanOrEqual(2);
  });

  it('a poll cut short by the --timeout is the timeout, not a network warning', async () => {
    const env = envOf(emu);
    await trainedModel(emu, env, 0);
    const id = await sftJob(env);
    await emu.fault({ path: '/training/v1/preview/training-jobs/*/events', delay_ms: 2000, status: 500 });
    const r = await runCli(['--timeout', '0.3', 'events', id, '--follow'], { env, realSleep: true });
    expect(r.code).toBe(7);
    expect(r.stderr).toMatch(/^error: the job had not ended after the --timeout of 0.3s; resume with: /);
  });

  it('an empty list says so on stderr, and stdout stays empty for scripts', async () => {
    const env = envOf(emu);
    await trainedModel(emu, env, 0);
    const [step0] = JSON.parse((await runCli(['checkpoints', 'list', 'agent', '--json'], { env })).stdout);
    const none = await runCli(['checkpoints', 'list', 'agent', '--after', step0.id], { env });
    expect(none).toMatchObject({ code: 0, stdout: '', stderr: 'No checkpoints\n' });
    const tty = await runCli(['checkpoints', 'list', 'agent', '--after', step0.id], { env, stdoutTTY: true });
    expect(tty).toMatchObject({ code: 0, stdout: '', stderr: 'No checkpoints\n' });
    const json = await runCli(['checkpoints', 'list', 'agent', '--after', step0.id, '--json'], { env });
    expect(json).toMatchObject({ code: 0, stdout: '[]\n', stderr: '' });
    const quiet = await runCli(['checkpoints', 'list', 'agent', '--after', step0.id, '-q'], { env });
    expect(quiet).toMatchObject({ code: 0, stdout: '', stderr: '' });
  });
});
