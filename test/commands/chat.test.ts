// aip chat (one completion) against the emulator, through the openai SDK: prompts from arguments and
// stdin, seeded messages, output modes, both APIs and checkpoint addressing, every error status, a
// stream cut short, Ctrl-C, and --continue transcripts. The conversation (REPL) is tested through a
// pseudo-terminal in e2e/repl.test.ts.

import { EventEmitter } from 'node:events';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RequestRecord } from '../../src/emulator/index.js';
import { main } from '../../src/main.js';
import { tempConfigDir, words } from '../helpers/cli.js';
import { useEmulator } from '../helpers/emulator.js';
import { fakeIO } from '../helpers/io.js';
import { waitFor } from '../helpers/wait.js';

const { emu, env, run } = useEmulator();

const MODEL = 'openai/gpt-oss-20b';
const INFERENCE = '/inference/v1/chat/completions';
const TRAINING = '/training/v1/chat/completions';

async function chatRequests(path = INFERENCE): Promise<RequestRecord[]> {
  return emu.requests({ method: 'POST', path });
}

async function lastBody(path = INFERENCE): Promise<Record<string, unknown>> {
  const all = await chatRequests(path);
  expect(all.length).toBeGreaterThan(0);
  return all.at(-1)!.body as Record<string, unknown>;
}

/** The emulator's whole reply to these messages, asked directly. */
async function replyTo(messages: unknown[], model = MODEL, api = 'inference'): Promise<string> {
  const res = await fetch(`${emu.origin}/${api}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${emu.key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model, messages }),
  });
  const body = (await res.json()) as { choices: Array<{ message: { content: string } }> };
  return body.choices[0]!.message.content;
}

describe('aip chat: prompts and output', () => {
  it('prints the reply to a one-shot prompt, with the project header sent', async () => {
    const r = await run(['chat', '-m', MODEL, 'Write', 'a', 'haiku']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const expected = await replyTo([{ role: 'user', content: 'Write a haiku' }]);
    expect(r.stdout).toBe(`${expected}\n`);
    expect(expected).toMatch(/^You asked about "Write a haiku"\. /);
    const [request] = await chatRequests();
    expect(request!.headers['openai-project']).toBe('local/demo');
    expect(request!.headers.authorization).toBe('Bearer ****cdef');
    expect(request!.body).toEqual({
      model: MODEL,
      messages: [{ role: 'user', content: 'Write a haiku' }],
      stream: false,
    });
  });

  it('takes the model from the default-model setting, and says how to set one when there is none', async () => {
    const none = await run(['chat', 'hi']);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/^error: no model: pass -m MODEL, or aip config set default-model MODEL/);
    expect(await chatRequests()).toHaveLength(0);
    expect((await run(['config', 'set', 'default-model', MODEL])).code).toBe(0);
    const r = await run(['chat', 'hi']);
    expect(r.code).toBe(0);
    expect((await lastBody()).model).toBe(MODEL);
  });

  it('reads the prompt from piped stdin, and joins stdin and the argument (stdin first)', async () => {
    const piped = await run(['chat', '-m', MODEL], { stdin: 'diff --git a b\n+line\n' });
    expect(piped.code).toBe(0);
    expect((await lastBody()).messages).toEqual([{ role: 'user', content: 'diff --git a b\n+line' }]);
    const joined = await run(['chat', '-m', MODEL, 'Review', 'this'], { stdin: 'the change\n' });
    expect(joined.code).toBe(0);
    expect((await lastBody()).messages).toEqual([{ role: 'user', content: 'the change\nReview this' }]);
  });

  it('is a usage error without a prompt off a terminal, before any request', async () => {
    const r = await run(['chat', '-m', MODEL], { stdin: '' });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^error: no prompt: give one as an argument or on stdin/);
    expect(await chatRequests()).toHaveLength(0);
  });

  it('seeds the conversation: the system prompt first, then each --message in order', async () => {
    const r = await run([
      'chat',
      '-m',
      MODEL,
      '--message',
      'user:What is 2+2?',
      '-s',
      'Be terse.',
      '--message',
      'assistant:4',
      'And 3+3?',
    ]);
    expect(r.code).toBe(0);
    expect((await lastBody()).messages).toEqual([
      { role: 'system', content: 'Be terse.' },
      { role: 'user', content: 'What is 2+2?' },
      { role: 'assistant', content: '4' },
      { role: 'user', content: 'And 3+3?' },
    ]);
    const bad = await run(['chat', '-m', MODEL, '--message', 'robot:beep', 'hi']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^error: --message robot:beep: expected role:content with a role of system/);
  });

  it('passes --temperature, --max-tokens and -o parameters (JSON values when they parse)', async () => {
    const r = await run(
      words`chat -m ${MODEL} --temperature 0.3 --max-tokens 4 -o top_p=0.9 -o 'stop=["\\n"]' -o user=alice hello`,
    );
    expect(r.code).toBe(0);
    expect(await lastBody()).toMatchObject({
      temperature: 0.3,
      max_tokens: 4,
      top_p: 0.9,
      stop: ['\n'],
      user: 'alice',
    });
    expect(r.stdout.trim().split(/\s+/)).toHaveLength(4);
    expect((await run(['chat', '-m', MODEL, '--max-tokens', '0', 'hi'])).code).toBe(2);
    const badOption = await run(['chat', '-m', MODEL, '-o', 'nonsense', 'hi']);
    expect(badOption.code).toBe(2);
    expect(badOption.stderr).toBe('error: -o nonsense: expected key=value\n');
  });

  it('--json prints the whole completion object', async () => {
    const r = await run(['chat', '-m', MODEL, '--json', 'hello'], { stdoutTTY: true });
    expect(r.code).toBe(0);
    const completion = JSON.parse(r.stdout);
    expect(completion).toMatchObject({
      object: 'chat.completion',
      model: MODEL,
      choices: [
        { index: 0, finish_reason: 'stop', message: { role: 'assistant', content: expect.any(String) } },
      ],
      usage: { prompt_tokens: expect.any(Number), completion_tokens: expect.any(Number) },
    });
    // Not streamed even on a terminal: one object, whole.
    expect((await lastBody()).stream).toBe(false);
  });

  it('--usage prints the token counts on stderr, streamed or not', async () => {
    const plain = await run(['chat', '-m', MODEL, '--usage', 'hello']);
    expect(plain.code).toBe(0);
    const usage = /^usage: (\d+) prompt \+ (\d+) completion = (\d+) tokens\n$/.exec(plain.stderr);
    expect(usage).not.toBeNull();
    expect(Number(usage![1]) + Number(usage![2])).toBe(Number(usage![3]));
    expect(Number(usage![2])).toBe(plain.stdout.trim().match(/\s*\S+/g)!.length);
    const streamed = await run(['chat', '-m', MODEL, '--usage', '--stream', 'hello']);
    expect(streamed.stderr).toBe(plain.stderr);
    expect(streamed.stdout).toBe(plain.stdout);
  });

  it('streams on a terminal (asking for the usage chunk) and not when piped, unless told', async () => {
    const tty = await run(['chat', '-m', MODEL, 'hello'], { stdoutTTY: true });
    expect(tty.code).toBe(0);
    expect(await lastBody()).toMatchObject({ stream: true, stream_options: { include_usage: true } });
    const piped = await run(['chat', '-m', MODEL, 'hello']);
    expect((await lastBody()).stream).toBe(false);
    expect(piped.stdout).toBe(tty.stdout);
    await run(['chat', '-m', MODEL, '--no-stream', 'hello'], { stdoutTTY: true });
    expect((await lastBody()).stream).toBe(false);
    await run(['chat', '-m', MODEL, '--stream', 'hello']);
    expect((await lastBody()).stream).toBe(true);
  });
});

describe('aip chat: which API', () => {
  async function trainedModel(name: string, steps: number): Promise<string> {
    const created = await run(
      words`models create --name ${name} --base-model OpenPipe/Qwen3-14B-Instruct -q`,
    );
    expect(created.code).toBe(0);
    const id = created.stdout.trim();
    await emu.control('POST', `/models/${id}/checkpoints`, { count: steps });
    return id;
  }

  it('sends a wandb-artifact model to the Training API', async () => {
    await trainedModel('agent', 3);
    const artifact = 'wandb-artifact:///local/demo/agent:step2';
    const r = await run(['chat', '-m', artifact, 'hello']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(await chatRequests()).toHaveLength(0);
    const [request] = await chatRequests(TRAINING);
    expect(request!.body).toMatchObject({ model: artifact });
    expect(request!.headers['openai-project']).toBe('local/demo');
    expect(r.stdout).toBe(`${await replyTo([{ role: 'user', content: 'hello' }], artifact, 'training')}\n`);
  });

  it('turns a model created here, name[:stepN], into its artifact', async () => {
    await trainedModel('agent', 5);
    expect((await run(['chat', '-m', 'agent:step5', 'hi'])).code).toBe(0);
    expect((await lastBody(TRAINING)).model).toBe('wandb-artifact:///local/demo/agent:step5');
    expect((await run(['chat', '-m', 'demo/agent', 'hi'])).code).toBe(0);
    expect((await lastBody(TRAINING)).model).toBe('wandb-artifact:///local/demo/agent');
    // :latest is looked up (issue 31) and sent as the step it is, which the answer names.
    const latest = await run(['chat', '-m', 'agent:latest', 'hi']);
    expect([latest.code, latest.stderr]).toEqual([0, expect.stringMatching(/agent:latest → agent:step5/)]);
    expect((await lastBody(TRAINING)).model).toBe('wandb-artifact:///local/demo/agent:step5');
  });

  it('--api overrides the choice either way', async () => {
    await trainedModel('agent', 1);
    // The Inference API serves trained LoRAs by their artifact too (api-contract.md §2.8).
    const inference = await run(['chat', '-m', 'agent:step1', '--api', 'inference', 'hi']);
    expect(inference.code).toBe(0);
    expect(await chatRequests(TRAINING)).toHaveLength(0);
    expect((await lastBody()).model).toBe('wandb-artifact:///local/demo/agent:step1');
    // The Training API serves only trained checkpoints: its own 404 body, exit 3.
    const training = await run(['chat', '-m', MODEL, '--api', 'training', 'hi']);
    expect(training.code).toBe(3);
    expect(training.stderr).toMatch(
      /^error: Model openai\/gpt-oss-20b not found \(HTTP 404 from POST \/training\/v1\/chat\/completions/,
    );
    const unknown = await run(['chat', '-m', 'no/such-model', 'hi']);
    expect(unknown.code).toBe(3);
    expect(unknown.stderr).toMatch(/^error: The model `no\/such-model` does not exist \(HTTP 404/);
    expect((await run(['chat', '-m', MODEL, '--api', 'cloud', 'hi'])).code).toBe(2);
  });

  it('an unknown step of a known model is a 404 from the Training API', async () => {
    await trainedModel('agent', 2);
    const r = await run(['chat', '-m', 'agent:step9', 'hi']);
    expect(r.code).toBe(3);
    expect(r.stderr).toContain('Model wandb-artifact:///local/demo/agent:step9 not found');
  });

  it('rejects an artifact URI without three slashes before sending', async () => {
    const r = await run(['chat', '-m', 'wandb-artifact://local/demo/agent', 'hi']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/three slashes/);
    expect(await chatRequests(TRAINING)).toHaveLength(0);
  });
});

describe('aip chat: errors', () => {
  const cases = [
    { status: 401, code: 4, text: /Authentication failed.*run 'aip auth login'/ },
    { status: 402, code: 6, text: /You exceeded your current quota/ },
    { status: 403, code: 4, text: /Forbidden/ },
    { status: 404, code: 3, text: /Not Found/ },
    { status: 429, code: 6, text: /Concurrency limit reached for requests/ },
    { status: 500, code: 1, text: /The server had an error while processing your request/ },
    { status: 503, code: 1, text: /The engine is currently overloaded/ },
  ];
  for (const api of ['inference', 'training'] as const) {
    const path = api === 'inference' ? INFERENCE : TRAINING;
    for (const { status, code, text } of cases) {
      it(`${status} from the ${api} API exits ${code} with the server's text`, async () => {
        await emu.fault({ path, status, retry_after: '0', times: 10 });
        for (const stream of ['--no-stream', '--stream']) {
          const r = await run(['--max-retries', '0', 'chat', '-m', MODEL, '--api', api, stream, 'hi']);
          expect(r.code).toBe(code);
          expect(r.stdout).toBe('');
          expect(r.stderr).toMatch(text);
          expect(r.stderr).toMatch(new RegExp(`HTTP ${status} from POST ${path}`));
          expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
          expect(r.stderr).not.toContain(emu.key);
        }
      });
    }
  }

  it('422 shows the field problems as path: message lines, exit 2, on either API', async () => {
    // An unsupported parameter, as the Inference API documents (§3.3): FastAPI's detail list.
    const detail = [
      { type: 'extra_forbidden', loc: ['body', 'logprobs'], msg: 'not supported by this model' },
    ];
    for (const path of [INFERENCE, TRAINING]) {
      await emu.fault({ path, status: 422, body: { detail }, times: 1 });
      const api = path === INFERENCE ? 'inference' : 'training';
      const r = await run(['chat', '-m', MODEL, '--api', api, '-o', 'logprobs=true', 'hi']);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(new RegExp(`HTTP 422 from POST ${path}`));
      expect(r.stderr).toContain('\n  logprobs: not supported by this model\n');
      expect(await chatRequests(path)).toHaveLength(1);
    }
  });

  it('retries a 429 after the Retry-After it was given, then answers', async () => {
    await emu.fault({ path: INFERENCE, status: 429, retry_after: '1', times: 1 });
    // Slept for real: the pause is aip's retry loop's, which the harness otherwise only records.
    const r = await run(['chat', '-m', MODEL, 'hi'], { realSleep: true });
    expect(r.code).toBe(0);
    const [first, second] = await chatRequests();
    expect([first!.status, second!.status]).toEqual([429, 200]);
    // A lower bound only: aip waited at least the second it was asked to.
    expect(Date.parse(second!.time) - Date.parse(first!.time)).toBeGreaterThanOrEqual(950);
  });

  it('a stream that stalls part-way ends after --timeout without a chunk (exit 1, the text so far kept)', async () => {
    // --timeout also bounds the wait for the answer's headers, which come at once: 2 s, not 0.5, so
    // that a busy machine still has them in time and the stall, not the request, is what times out.
    await emu.control('POST', '/chat', { token_ms: 30_000 });
    try {
      const r = await run(['--timeout', '2', 'chat', '-m', MODEL, '--stream', 'hi']);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(
        /^error: Inference API: the stream stalled: nothing for 2s after 0 characters/i,
      );
    } finally {
      await emu.control('POST', '/chat', { token_ms: 0 });
    }
  });

  it('a key that is wrong is 401 from either API (exit 4), and the key never shows', async () => {
    const wrong = 'wrong-key-000000000000';
    const r = await run(['chat', '-m', MODEL, 'hi'], { env: { AIP_API_KEY: wrong } });
    expect(r.code).toBe(4);
    expect(r.stderr).not.toContain(wrong);
  });

  it('a stream cut short keeps the text that arrived on stdout and exits 1', async () => {
    const full = await run(['chat', '-m', MODEL, '--stream', 'tell me a story']);
    await emu.fault({ path: INFERENCE, cut_after_bytes: 700, times: 1 });
    const r = await run(['chat', '-m', MODEL, '--stream', 'tell me a story']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /^error: .*(closed before the answer was complete|stream ended before the reply was complete)/,
    );
    expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
    const partial = r.stdout.trimEnd();
    expect(partial.length).toBeGreaterThan(0);
    expect(full.stdout.startsWith(partial)).toBe(true);
    expect(partial.length).toBeLessThan(full.stdout.trimEnd().length);
    expect(r.stdout.endsWith('\n')).toBe(true);
  });

  it('a dropped connection is a network error (exit 1), with nothing on stdout', async () => {
    await emu.fault({ path: INFERENCE, drop: true, times: 10 });
    const r = await run(['--max-retries', '0', 'chat', '-m', MODEL, 'hi']);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(
      /^error: inference API unreachable: POST \/inference\/v1\/chat\/completions failed/,
    );
  });
});

describe('aip chat: interrupting and continuing', () => {
  it('Ctrl-C stops a streamed reply: the text so far stays, exit 130', async () => {
    // A token each 200 ms: once some of the reply is on stdout, the rest is seconds away.
    await emu.control('POST', '/chat', { token_ms: 200 });
    try {
      const full = await replyTo([{ role: 'user', content: 'a long answer please' }]);
      const signals = new EventEmitter();
      const { io, stdout, stderr } = fakeIO({ env });
      const running = main(['chat', '-m', MODEL, '--stream', 'a long answer please'], {
        env,
        io,
        signals,
        sleep: async () => undefined,
      });
      // Pressed once the reply has begun: not after a fixed time, in which a busy machine may have
      // shown none of it (or all).
      await waitFor(() => stdout.text.length > 0);
      signals.emit('SIGINT');
      const r = { code: await running, stdout: stdout.text, stderr: stderr.text };
      expect(r.code).toBe(130);
      expect(r.stderr).toBe('error: interrupted\n');
      const partial = r.stdout.trimEnd();
      expect(partial.length).toBeGreaterThan(0);
      expect(partial.length).toBeLessThan(full.length);
      expect(full.startsWith(partial)).toBe(true);
      expect(signals.listenerCount('SIGINT')).toBe(0);
      expect(signals.listenerCount('SIGTERM')).toBe(0);
    } finally {
      await emu.control('POST', '/chat', { token_ms: 0 });
    }
  });

  it('Ctrl-C while waiting for a whole reply prints nothing on stdout, with or without --json', async () => {
    for (const json of [[], ['--json']]) {
      await emu.reset();
      // Held back 20 s: Ctrl-C comes while it waits, however long a busy machine takes to see the request.
      await emu.fault({ path: INFERENCE, delay_ms: 20_000, times: 1 });
      const signals = new EventEmitter();
      const running = run(['chat', '-m', MODEL, ...json, 'hi'], { signals });
      await waitFor(async () => (await chatRequests()).length > 0);
      signals.emit('SIGINT');
      const r = await running;
      expect(r.code).toBe(130);
      expect(r.stdout).toBe('');
      expect(r.stderr).toBe('error: interrupted\n');
    }
  });

  it('stops streaming when nobody reads stdout any more (`| head`), exit 0', async () => {
    await emu.control('POST', '/chat', { token_ms: 40 });
    try {
      const { io, stdout } = fakeIO({ env });
      const done = main(['chat', '-m', MODEL, '--stream', 'a long answer please'], {
        env,
        io,
        signals: new EventEmitter(),
        sleep: async () => undefined,
      });
      await waitFor(async () => stdout.text.length > 0);
      io.markStdoutClosed();
      expect(await done).toBe(0);
      const full = await replyTo([{ role: 'user', content: 'a long answer please' }]);
      expect(stdout.text.length).toBeLessThan(full.length);
    } finally {
      await emu.control('POST', '/chat', { token_ms: 0 });
    }
  });

  it('--continue sends a transcript first and appends the new turn to it', async () => {
    const file = join(tempConfigDir(), 'notes.jsonl');
    const first = await run(['chat', '-m', MODEL, '--continue', file, 'first question']);
    expect(first.code).toBe(0);
    const second = await run(['chat', '-m', MODEL, '--continue', file, 'second question']);
    expect(second.code).toBe(0);
    const messages = readFileSync(file, 'utf8')
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(messages).toEqual([
      { role: 'user', content: 'first question' },
      { role: 'assistant', content: first.stdout.trimEnd() },
      { role: 'user', content: 'second question' },
      { role: 'assistant', content: second.stdout.trimEnd() },
    ]);
    expect((await lastBody()).messages).toEqual(messages.slice(0, 3));
  });

  it('--continue keeps the seeded turns it sent (a new -s replaces the old system prompt)', async () => {
    const file = join(tempConfigDir(), 'seeded.jsonl');
    writeFileSync(
      file,
      '{"role":"system","content":"old"}\n{"role":"user","content":"hi"}\n{"role":"assistant","content":"hello"}\n',
    );
    const r = await run(
      words`chat -m ${MODEL} --continue ${file} -s new --message user:one --message assistant:two three`,
    );
    expect(r.code).toBe(0);
    const saved = readFileSync(file, 'utf8')
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(saved).toEqual([
      { role: 'system', content: 'new' },
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: 'hello' },
      { role: 'user', content: 'one' },
      { role: 'assistant', content: 'two' },
      { role: 'user', content: 'three' },
      { role: 'assistant', content: r.stdout.trimEnd() },
    ]);
    expect((await lastBody()).messages).toEqual(saved.slice(0, -1));
  });

  it('--continue to a file that cannot be written is refused before sending', async () => {
    const dir = tempConfigDir();
    for (const file of [join(dir, 'no-such-dir', 't.jsonl'), dir]) {
      const r = await run(['chat', '-m', MODEL, '--continue', file, 'hi']);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(new RegExp(`^error: cannot write ${file}: `));
    }
    expect(await chatRequests()).toHaveLength(0);
  });

  it('--continue rejects a transcript with bad lines before sending, listing each problem', async () => {
    const file = join(tempConfigDir(), 'bad.jsonl');
    const text =
      '{"role":"user","content":"hi"}\nnot json\n{"role":"tool","content":"42"}\n{"role":"robot"}\n';
    writeFileSync(file, text);
    const r = await run(['chat', '-m', MODEL, '--continue', file, 'more']);
    expect(r.code).toBe(2);
    const lines = r.stderr.trimEnd().split('\n');
    expect(lines[0]).toMatch(new RegExp(`^${file}:2: invalid JSON: `));
    expect(lines[1]).toBe(`${file}:3: tool_call_id: Field required`);
    expect(lines[2]).toMatch(new RegExp(`^${file}:4: role: `));
    expect(lines[3]).toBe(`error: ${file}: 3 problems in the transcript; nothing was sent`);
    expect(await chatRequests()).toHaveLength(0);
    expect(readFileSync(file, 'utf8')).toBe(text);
    writeFileSync(file, '[{"role":"user","content":"hi"}]');
    const array = await run(['chat', '-m', MODEL, '--continue', file, 'more']);
    expect(array.code).toBe(2);
    expect(array.stderr).toBe(
      `error: ${file}: a transcript is JSON Lines (one message per line), not a JSON array\n`,
    );
  });

  it('--continue continues a file whose last line has no newline', async () => {
    const file = join(tempConfigDir(), 'hand.jsonl');
    writeFileSync(file, '{"role":"system","content":"Be brief."}');
    const r = await run(['chat', '-m', MODEL, '--continue', file, 'hi']);
    expect(r.code).toBe(0);
    const roles = readFileSync(file, 'utf8')
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line).role);
    expect(roles).toEqual(['system', 'user', 'assistant']);
  });

  it('a failed turn leaves the transcript as it was', async () => {
    const file = join(tempConfigDir(), 'notes.jsonl');
    writeFileSync(file, '{"role":"user","content":"hi"}\n{"role":"assistant","content":"hello"}\n');
    await emu.fault({ path: INFERENCE, status: 500, times: 10 });
    const r = await run(['--max-retries', '0', 'chat', '-m', MODEL, '--continue', file, 'more']);
    expect(r.code).toBe(1);
    expect(readFileSync(file, 'utf8')).toBe(
      '{"role":"user","content":"hi"}\n{"role":"assistant","content":"hello"}\n',
    );
  });
});
