// The spans aip makes carry what the platform's Agents view renders (api-contract.md §4.3): the
// GenAI operation, provider, agent, conversation, tool and token usage. Each test reads the spans
// back from the emulator's trace ingest and compares every attribute, with its type: an attribute
// missing, extra, renamed or of another type fails it, as does a wrong name, kind or parent.

import { EventEmitter } from 'node:events';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from '../../../src/main.js';
import { useEmulator } from '../../helpers/emulator.js';
import { fakeIO } from '../../helpers/io.js';
import { waitFor } from '../../helpers/wait.js';

interface Span {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  attributes?: Array<{ key: string; value: Record<string, unknown> }>;
  status?: { code: number; message?: string };
}

const MODEL = 'openai/gpt-oss-20b';
const KIND = { internal: 1, client: 3 };
const node = process.execPath;

const t = useEmulator();
const { emu, env, run } = t;

async function spans(): Promise<Span[]> {
  const body = (await emu.control('GET', '/spans')).body as { data: Array<{ span: Span }> };
  return body.data.map((d) => d.span);
}

/** The stored spans by name, each name once. */
async function byName(): Promise<Record<string, Span>> {
  const all = await spans();
  const named = Object.fromEntries(all.map((s) => [s.name, s]));
  expect(Object.keys(named)).toHaveLength(all.length);
  return named;
}

/** A span's attributes as key → typed value; a key given twice fails. */
function attrs(span: Span | undefined): Record<string, unknown> {
  const list = span?.attributes ?? [];
  const map = Object.fromEntries(list.map((a) => [a.key, a.value]));
  expect(Object.keys(map)).toHaveLength(list.length);
  return map;
}

const str = (stringValue: string) => ({ stringValue });
const int = (n: number | string) => ({ intValue: String(n) });
const anyInt = { intValue: expect.stringMatching(/^\d+$/) };
const provider = { 'gen_ai.provider.name': str('wandb'), 'gen_ai.system': str('wandb') };
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The chat span's attributes for a reply with this usage (no conversation). */
function chatAttrs(usage: { prompt_tokens: number; completion_tokens: number }, model = MODEL) {
  return {
    'gen_ai.operation.name': str('chat'),
    ...provider,
    'gen_ai.request.model': str(model),
    'gen_ai.response.model': str(model),
    'server.address': str('127.0.0.1'),
    'server.port': int(new URL(emu.origin).port),
    'gen_ai.usage.input_tokens': int(usage.prompt_tokens),
    'gen_ai.usage.output_tokens': int(usage.completion_tokens),
    'gen_ai.response.finish_reasons': { arrayValue: { values: [str('stop')] } },
  };
}

/** The child lies within its parent, in the same trace. */
function expectChild(child: Span | undefined, parent: Span | undefined): void {
  expect(child!.traceId).toBe(parent!.traceId);
  expect(child!.parentSpanId).toBe(parent!.spanId);
  expect(BigInt(child!.startTimeUnixNano)).toBeGreaterThanOrEqual(BigInt(parent!.startTimeUnixNano));
  expect(BigInt(child!.endTimeUnixNano)).toBeLessThanOrEqual(BigInt(parent!.endTimeUnixNano));
}

describe('aip chat --trace', () => {
  it('a one-shot chat without a known agent is one chat span, with the provider and usage', async () => {
    const r = await run(['chat', '-m', MODEL, '--trace', '--json', '--temperature', '0.5', 'hello']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const { usage, choices } = JSON.parse(r.stdout);
    expect(choices[0].finish_reason).toBe('stop');
    const all = await spans();
    expect(all.map((s) => s.name)).toEqual([`chat ${MODEL}`]);
    const [chat] = all;
    expect(chat!.kind).toBe(KIND.client);
    expect(chat!.parentSpanId).toBeUndefined();
    expect(attrs(chat)).toEqual({ ...chatAttrs(usage), 'gen_ai.request.temperature': { doubleValue: 0.5 } });
  });

  it('with --agent, the chat span is the child of an invoke_agent span with the summed usage', async () => {
    const r = await run(['chat', '-m', MODEL, '--trace', '--json', '--agent', 'support-bot', 'hello']);
    expect(r.code).toBe(0);
    const { usage } = JSON.parse(r.stdout);
    const named = await byName();
    expect(Object.keys(named).sort()).toEqual([`chat ${MODEL}`, 'invoke_agent support-bot']);
    const turn = named['invoke_agent support-bot'];
    const chat = named[`chat ${MODEL}`];
    expect(turn!.kind).toBe(KIND.internal);
    expect(turn!.parentSpanId).toBeUndefined();
    expectChild(chat, turn);
    expect(attrs(chat)).toEqual(chatAttrs(usage));
    expect(attrs(turn)).toEqual({
      'gen_ai.operation.name': str('invoke_agent'),
      ...provider,
      'gen_ai.agent.name': str('support-bot'),
      'gen_ai.request.model': str(MODEL),
      'gen_ai.usage.input_tokens': int(usage.prompt_tokens),
      'gen_ai.usage.output_tokens': int(usage.completion_tokens),
    });
  });

  it("a trained model is its own agent, by the name it was created with; TRACEPARENT is the turn's parent", async () => {
    const created = await run('models create --name agent-007 --base-model OpenPipe/Qwen3-14B-Instruct');
    expect(created.code).toBe(0);
    const parent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
    const r = await run(['chat', '-m', 'agent-007', '--trace', '--json', 'hi'], {
      env: { TRACEPARENT: parent },
    });
    expect(r.code).toBe(0);
    const { usage, model } = JSON.parse(r.stdout);
    const artifact = 'wandb-artifact:///local/demo/agent-007';
    const named = await byName();
    const turn = named['invoke_agent agent-007'];
    expect(turn).toMatchObject({
      traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
      parentSpanId: '00f067aa0ba902b7',
    });
    expectChild(named[`chat ${artifact}`], turn);
    expect(attrs(turn)).toEqual({
      'gen_ai.operation.name': str('invoke_agent'),
      ...provider,
      'gen_ai.agent.name': str('agent-007'),
      'gen_ai.request.model': str(artifact),
      'gen_ai.usage.input_tokens': int(usage.prompt_tokens),
      'gen_ai.usage.output_tokens': int(usage.completion_tokens),
    });
    expect(attrs(named[`chat ${artifact}`])).toEqual({
      ...chatAttrs(usage, artifact),
      'gen_ai.response.model': str(model),
    });
  });

  it('a failed turn: both spans say so, with the error type and no usage', async () => {
    await emu.fault({ path: '/inference/v1/chat/completions', status: 429, retry_after: '0', times: 5 });
    const r = await run(['--max-retries', '0', 'chat', '-m', MODEL, '--trace', '--agent', 'bot', 'hi']);
    expect(r.code).toBe(6);
    const named = await byName();
    expectChild(named[`chat ${MODEL}`], named['invoke_agent bot']);
    for (const span of Object.values(named)) expect(span.status).toMatchObject({ code: 2 });
    expect(attrs(named['invoke_agent bot'])).toEqual({
      'gen_ai.operation.name': str('invoke_agent'),
      ...provider,
      'gen_ai.agent.name': str('bot'),
      'gen_ai.request.model': str(MODEL),
      'error.type': str('429'),
    });
    expect(attrs(named[`chat ${MODEL}`])).toEqual({
      'gen_ai.operation.name': str('chat'),
      ...provider,
      'gen_ai.request.model': str(MODEL),
      'server.address': str('127.0.0.1'),
      'server.port': int(new URL(emu.origin).port),
      'error.type': str('429'),
    });
  });

  it('--agent without --trace is a usage error, and nothing is asked', async () => {
    const r = await run(['chat', '-m', MODEL, '--agent', 'x', 'hello']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('error: --agent names the agent in the spans of --trace: add --trace\n');
    expect(await emu.requests({ method: 'POST' })).toHaveLength(0);
  });

  it('a conversation: every turn an invoke_agent span, root of its own trace, all with one conversation id', async () => {
    const { io, stdin, stderr } = fakeIO({ env, stdinTTY: true });
    const done = main(['chat', '-m', MODEL, '--trace', '--no-stream'], {
      env,
      io,
      signals: new EventEmitter(),
      sleep: async () => undefined,
    });
    await waitFor(() => stderr.text.includes('> '));
    stdin.write('first question\r');
    await waitFor(async () => (await spans()).length === 2);
    stdin.write('second question\r');
    await waitFor(async () => (await spans()).length === 4);
    stdin.end();
    expect(await done).toBe(0);

    const all = await spans();
    const turns = all.filter((s) => s.name === 'invoke_agent');
    const chats = all.filter((s) => s.name === `chat ${MODEL}`);
    expect(turns).toHaveLength(2);
    expect(chats).toHaveLength(2);
    expect(new Set(turns.map((t) => t.traceId)).size).toBe(2);
    const conversation = attrs(turns[0]!)['gen_ai.conversation.id'] as { stringValue: string };
    expect(conversation.stringValue).toMatch(UUID);
    const requests = await emu.requests({ method: 'POST', path: '/inference/v1/chat/completions' });
    expect(requests).toHaveLength(2);
    for (const [i, turn] of turns.entries()) {
      expect(turn.kind).toBe(KIND.internal);
      expect(turn.parentSpanId).toBeUndefined();
      const chat = chats.find((c) => c.parentSpanId === turn.spanId);
      expectChild(chat, turn);
      const input = attrs(chat)['gen_ai.usage.input_tokens'];
      const output = attrs(chat)['gen_ai.usage.output_tokens'];
      expect(attrs(turn)).toEqual({
        'gen_ai.operation.name': str('invoke_agent'),
        ...provider,
        'gen_ai.conversation.id': conversation,
        'gen_ai.request.model': str(MODEL),
        'gen_ai.usage.input_tokens': input,
        'gen_ai.usage.output_tokens': output,
      });
      expect(attrs(chat)).toEqual({
        'gen_ai.operation.name': str('chat'),
        ...provider,
        'gen_ai.request.model': str(MODEL),
        'gen_ai.response.model': str(MODEL),
        'gen_ai.conversation.id': conversation,
        'server.address': str('127.0.0.1'),
        'server.port': int(new URL(emu.origin).port),
        'gen_ai.usage.input_tokens': anyInt,
        'gen_ai.usage.output_tokens': anyInt,
        'gen_ai.response.finish_reasons': { arrayValue: { values: [str('stop')] } },
      });
      // The second turn sends the first exchange again: more input tokens.
      if (i === 1) {
        const first = attrs(turns[0]!)['gen_ai.usage.input_tokens'] as { intValue: string };
        expect(Number((input as { intValue: string }).intValue)).toBeGreaterThan(Number(first.intValue));
      }
      expect((requests[i]!.body as { messages: unknown[] }).messages).toHaveLength(i === 0 ? 1 : 3);
    }
  });
});

describe('aip traces exec', () => {
  const process = (code: number) => ({
    'process.executable.name': str('node'),
    'process.command_args': { arrayValue: { values: [str(node), str('-e'), str(`process.exit(${code})`)] } },
    'process.pid': anyInt,
    'process.exit.code': int(code),
  });

  it('is an execute_tool span of the command by default', async () => {
    const r = await run(['traces', 'exec', '--', node, '-e', 'process.exit(0)']);
    expect(r.code).toBe(0);
    const [span, ...more] = await spans();
    expect(more).toHaveLength(0);
    expect(span).toMatchObject({ name: 'execute_tool node', kind: KIND.internal });
    expect(attrs(span)).toEqual({
      'gen_ai.operation.name': str('execute_tool'),
      'gen_ai.tool.name': str('node'),
      ...process(0),
    });
  });

  it('with --agent is an invoke_agent span of it, in a conversation with --conversation', async () => {
    const r = await run([
      'traces',
      'exec',
      '--agent',
      'triage',
      '--conversation',
      'run-42',
      '--attr',
      'ci.job=build',
      '--',
      node,
      '-e',
      'process.exit(0)',
    ]);
    expect(r.code).toBe(0);
    const [span] = await spans();
    expect(span).toMatchObject({ name: 'invoke_agent triage', kind: KIND.internal });
    expect(attrs(span)).toEqual({
      'gen_ai.operation.name': str('invoke_agent'),
      'gen_ai.agent.name': str('triage'),
      'gen_ai.conversation.id': str('run-42'),
      ...process(0),
      'ci.job': str('build'),
    });
  });

  it('with --conversation alone stays the execute_tool span of the command, in that conversation', async () => {
    const r = await run(['traces', 'exec', '--conversation', 'run-42', '--', node, '-e', 'process.exit(0)']);
    expect(r.code).toBe(0);
    const [span] = await spans();
    expect(span).toMatchObject({ name: 'execute_tool node', kind: KIND.internal });
    expect(attrs(span)).toEqual({
      'gen_ai.operation.name': str('execute_tool'),
      'gen_ai.conversation.id': str('run-42'),
      'gen_ai.tool.name': str('node'),
      ...process(0),
    });
  });

  it('--operation forces one; --tool names the tool; --name always wins', async () => {
    const chat = await run([
      'traces',
      'exec',
      '--operation',
      'chat',
      '--attr',
      'gen_ai.request.model=gpt-4o',
      '--',
      node,
      '-e',
      'process.exit(0)',
    ]);
    expect(chat.code).toBe(0);
    const tool = await run([
      'traces',
      'exec',
      '--operation',
      'execute_tool',
      '--agent',
      'triage',
      '--tool',
      'lint',
      '--name',
      'lint step',
      '--',
      node,
      '-e',
      'process.exit(0)',
    ]);
    expect(tool.code).toBe(0);
    const named = await byName();
    expect(Object.keys(named).sort()).toEqual(['chat gpt-4o', 'lint step']);
    // A chat is a call to a model server: kind client unless --kind says otherwise.
    expect(named['chat gpt-4o']!.kind).toBe(KIND.client);
    expect(attrs(named['chat gpt-4o'])).toEqual({
      'gen_ai.operation.name': str('chat'),
      ...process(0),
      'gen_ai.request.model': str('gpt-4o'),
    });
    expect(named['lint step']!.kind).toBe(KIND.internal);
    expect(attrs(named['lint step'])).toEqual({
      'gen_ai.operation.name': str('execute_tool'),
      'gen_ai.agent.name': str('triage'),
      'gen_ai.tool.name': str('lint'),
      ...process(0),
    });
  });

  it('refuses an --attr of a key its flags set, before the command runs', async () => {
    const marker = join(t.dir, 'ran');
    const touch = ['--', node, '-e', `require('fs').writeFileSync(${JSON.stringify(marker)}, '')`];
    const byDefault = await run(['traces', 'exec', '--attr', 'gen_ai.tool.name=lint', ...touch]);
    expect(byDefault.code).toBe(2);
    expect(byDefault.stderr).toBe(
      "error: --attr gen_ai.tool.name: this span's gen_ai.tool.name is node (from its other flags, or by default); set it with --tool instead\n",
    );
    const both = await run(['traces', 'exec', '--agent', 'a', '--attr', 'gen_ai.agent.name=b', ...touch]);
    expect(both.code).toBe(2);
    expect(both.stderr).toBe(
      'error: --attr gen_ai.agent.name: --agent sets it already; give only one of them\n',
    );
    const implied = await run([
      'traces',
      'exec',
      '--agent',
      'a',
      '--attr',
      'gen_ai.operation.name=chat',
      ...touch,
    ]);
    expect(implied.code).toBe(2);
    expect(existsSync(marker)).toBe(false);
    expect(await emu.requests({ method: 'POST' })).toHaveLength(0);
  });
});

describe('aip traces span', () => {
  it('without GenAI flags is a plain span: no gen_ai attributes but those given', async () => {
    const r = await run('traces span --name deploy --attr env=prod --attr gen_ai.agent.name=free');
    expect(r.code).toBe(0);
    const [span] = await spans();
    expect(span).toMatchObject({ name: 'deploy', kind: KIND.internal });
    expect(attrs(span)).toEqual({ env: str('prod'), 'gen_ai.agent.name': str('free') });
    const unnamed = await run(['traces', 'span', '--attr', 'env=prod']);
    expect(unnamed.code).toBe(2);
    expect(unnamed.stderr).toBe(
      'error: --name is required (or --operation, --agent, --tool or --conversation, which name it)\n',
    );
  });

  it('refuses an --attr of a key its GenAI flags set, and sends nothing', async () => {
    const r = await run(['traces', 'span', '--tool', 'get_weather', '--attr', 'gen_ai.tool.name=other']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('error: --attr gen_ai.tool.name: --tool sets it already; give only one of them\n');
    const implied = await run('traces span --conversation c-1 --attr gen_ai.operation.name=chat');
    expect(implied.code).toBe(2);
    expect(implied.stderr).toBe(
      "error: --attr gen_ai.operation.name: this span's gen_ai.operation.name is invoke_agent (from its other flags, or by default); set it with --operation instead\n",
    );
    expect(await emu.requests({ method: 'POST' })).toHaveLength(0);
  });

  it('with GenAI flags gets the operation they imply, and a name from them unless --name is given', async () => {
    for (const args of [
      ['--agent', 'planner', '--conversation', 'c-1'],
      ['--conversation', 'c-1'],
      ['--tool', 'get_weather', '--attr', 'gen_ai.tool.call.id=call_1'],
      ['--tool', 'get_weather', '--name', 'weather lookup'],
      ['--operation', 'chat', '--attr', 'gen_ai.request.model=gpt-4o'],
      ['--operation', 'invoke_agent', '--agent', 'router', '--kind', 'client'],
    ]) {
      const r = await run(['traces', 'span', ...args]);
      expect([args, r.stderr, r.code]).toEqual([args, '', 0]);
    }
    const named = await byName();
    expect(
      Object.fromEntries(
        Object.entries(named).map(([name, span]) => [name, { kind: span.kind, attributes: attrs(span) }]),
      ),
    ).toEqual({
      'invoke_agent planner': {
        kind: KIND.internal,
        attributes: {
          'gen_ai.operation.name': str('invoke_agent'),
          'gen_ai.agent.name': str('planner'),
          'gen_ai.conversation.id': str('c-1'),
        },
      },
      invoke_agent: {
        kind: KIND.internal,
        attributes: { 'gen_ai.operation.name': str('invoke_agent'), 'gen_ai.conversation.id': str('c-1') },
      },
      'execute_tool get_weather': {
        kind: KIND.internal,
        attributes: {
          'gen_ai.operation.name': str('execute_tool'),
          'gen_ai.tool.name': str('get_weather'),
          'gen_ai.tool.call.id': str('call_1'),
        },
      },
      'weather lookup': {
        kind: KIND.internal,
        attributes: { 'gen_ai.operation.name': str('execute_tool'), 'gen_ai.tool.name': str('get_weather') },
      },
      'chat gpt-4o': {
        kind: KIND.client,
        attributes: { 'gen_ai.operation.name': str('chat'), 'gen_ai.request.model': str('gpt-4o') },
      },
      'invoke_agent router': {
        kind: KIND.client,
        attributes: { 'gen_ai.operation.name': str('invoke_agent'), 'gen_ai.agent.name': str('router') },
      },
    });
  });
});
