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
    expect((await emu.control('POST', '/job-plans', { steps: 150 })).status).toBe(200);
    const created = await runCli(
      [
        'jobs',
        'create',
        'sft',
        '--model',
        'agent',
        '--data-url',
        'wandb-artifact:///local/demo/d:v0',
        '--wait',
        '-q',
      ],
      { env, sleepCap: 5 },
    );
    expect(created.code).toBe(0);
    const id = created.stdout.trim();
    const events = '/training/v1/preview/training-jobs/*/events';
    // The first page reads; the second fails (no retries).
    await emu.fault({ path: events, status: 500, skip: 1 });
    const partial = await runCli(['--max-retries', '0', 'jobs', 'get', id], { env });
    expect(partial.code).toBe(1);
    expect(partial.stdout).toMatch(
      new RegExp(
        `^id\\t${id}\\nstatus\\trunning 99/150 \\(as of 100 events; the rest could not be read\\)\\nkind\\tsft\\n`,
      ),
    );
    expect(partial.stderr).toMatch(
      /^warning: the job's events could not all be read: its state is as of the first 100\nerror: The server had an error .*HTTP 500/,
    );
    await emu.fault({ path: events, status: 429, times: 1 });
    const json = await runCli(['--max-retries', '0', 'jobs', 'get', id, '--json'], { env });
    expect(json.code).toBe(6);
    expect(JSON.parse(json.stdout)).toMatchObject({
      id,
      status: 'queued',
      events: 0,
      events_complete: false,
      job: { id },
    });
    const whole = await runCli(['jobs', 'get', id, '--json'], { env });
    expect(JSON.parse(whole.stdout)).toMatchObject({
      id,
      status: 'succeeded',
      events: 152,
      events_complete: true,
    });
  });
});

describe('cursors', () => {
  it('an empty last_id from an empty page is never sent back as after=', async () => {
    const env = envOf(emu);
    await trainedModel(emu, env, 0);
    await emu.control('POST', '/job-plans', { steps: 2 });
    const id = (
      await runCli(
        [
          'jobs',
          'create',
          'sft',
          '--model',
          'agent',
          '--data-url',
          'wandb-artifact:///local/demo/d:v0',
          '-q',
        ],
        { env },
      )
    ).stdout.trim();
    await runCli(['events', id, '--follow', '--interval', '0.01'], { env, sleepCap: 5 });
    await runCli(['events', id, '--all'], { env });
    const sent = await emu.requests({ path: `/training/v1/preview/training-jobs/${id}/events` });
    expect(sent.length).toBeGreaterThan(1);
    expect(sent.filter((r) => r.query.after === '')).toEqual([]);
  });
});
