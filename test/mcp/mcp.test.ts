// `aip mcp` as an agent meets it: the built aip, started by the MCP SDK's own Client over stdio, against
// a real emulator. The tools are listed; a model is created, an RL job made on it and waited for (with
// progress notifications), its checkpoints listed and evaluated, every result structured; a delete
// without confirm is refused and sends nothing; a wait is cancelled and the server answers after it;
// --read-only offers no tool that changes anything; the key is in no message received, and stdout
// carries JSON-RPC and nothing else.

import { spawn } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult, JSONRPCMessage, Progress } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { patience } from '../helpers/patience.js';
import { aipEnv, BIN, collect } from '../helpers/spawn.js';
import { tempDir } from '../helpers/temp.js';
import { waitFor } from '../helpers/wait.js';

const EXAMPLES = join(import.meta.dirname, '..', '..', 'examples');
const GROUPS = join(EXAMPLES, 'groups.jsonl');
const TASKS = join(EXAMPLES, 'arithmetic.jsonl');

let emu: TestEmulator;

beforeAll(async () => {
  emu = await startTestEmulator();
});
afterAll(async () => {
  await emu?.close();
});

function serverEnv(): Record<string, string> {
  const config = tempDir('aip-mcp-config-');
  return aipEnv({
    ...emu.env,
    AIP_CONFIG_DIR: config,
    AIP_DATA_DIR: join(config, 'data'),
    AIP_PROJECT: 'local/demo',
  });
}

interface Connected {
  client: Client;
  transport: StdioClientTransport;
  /** Every message the server sent after the handshake. */
  received: JSONRPCMessage[];
  /** What the transport could not read (a stray line on stdout would be one). */
  errors: Error[];
  stderr: () => string;
}

const open: Connected[] = [];
afterAll(async () => {
  for (const c of open.splice(0)) await c.client.close();
});

/** `aip <args> mcp <mcpArgs>`, connected. */
async function connect(args: string[] = [], mcpArgs: string[] = []): Promise<Connected> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, ...args, 'mcp', ...mcpArgs],
    env: serverEnv(),
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk) => {
    stderr += chunk;
  });
  const client = new Client({ name: 'aip-test', version: '1.0.0' });
  const errors: Error[] = [];
  const received: JSONRPCMessage[] = [];
  await client.connect(transport);
  const onmessage = transport.onmessage;
  transport.onmessage = (message: JSONRPCMessage) => {
    received.push(message);
    onmessage?.(message);
  };
  const onerror = transport.onerror;
  transport.onerror = (error) => {
    errors.push(error);
    onerror?.(error);
  };
  const connected = { client, transport, received, errors, stderr: () => stderr };
  open.push(connected);
  return connected;
}

async function call(
  c: Connected,
  name: string,
  args: Record<string, unknown>,
  options: { onprogress?: (p: Progress) => void; signal?: AbortSignal } = {},
): Promise<CallToolResult> {
  return (await c.client.callTool({ name, arguments: args }, undefined, {
    timeout: patience(120_000),
    ...options,
  })) as CallToolResult;
}

/** A new model's RL job, made through `c`, that takes an hour a step (the emulator's job plan). */
async function hourLongJob(c: Connected, model: string): Promise<string> {
  const made = await call(c, 'models_create', { name: model, base_model: 'OpenPipe/Qwen3-14B-Instruct' });
  const modelId = (made.structuredContent as { id: string }).id;
  await emu.control('POST', '/job-plans', { steps: 3, step_ms: 3_600_000, times: 1 });
  const created = await call(c, 'jobs_create_rl', { model: modelId, file: GROUPS });
  await emu.control('POST', '/job-plans', { step_ms: 2 });
  return (created.structuredContent as { id: string }).id;
}

const text = (result: CallToolResult) =>
  result.content.map((part) => (part.type === 'text' ? part.text : '')).join('\n');

describe('aip mcp over stdio, against the emulator', () => {
  let c: Connected;
  let modelId: string;
  const name = 'mcp-agent';

  beforeAll(async () => {
    c = await connect();
  });

  it('lists a tool per verb, with schemas from the flags', async () => {
    const { tools } = await c.client.listTools();
    const names = tools.map((t) => t.name);
    for (const expected of [
      'models_list',
      'models_create',
      'models_delete',
      'checkpoints_list',
      'checkpoints_prune',
      'jobs_create_rl',
      'jobs_get',
      'jobs_wait',
      'jobs_list',
      'events',
      'chat',
      'rollouts',
      'eval',
      'train_rl',
      'traces_send',
      'health',
      'doctor',
    ])
      expect(names).toContain(expected);
    for (const excluded of ['auth_login', 'auth_token', 'mcp', 'completion', 'emulator', 'traces_serve'])
      expect(names).not.toContain(excluded);
    const create = tools.find((t) => t.name === 'models_create')!;
    expect(create.inputSchema.required).toEqual(expect.arrayContaining(['name', 'base_model']));
    expect(create.inputSchema.properties).toHaveProperty(
      'return_existing',
      expect.objectContaining({ type: 'boolean' }),
    );
    const del = tools.find((t) => t.name === 'models_delete')!;
    expect(del.annotations?.destructiveHint).toBe(true);
    expect(del.inputSchema.properties).toHaveProperty('confirm');
    const list = tools.find((t) => t.name === 'checkpoints_list')!;
    expect(list.annotations?.readOnlyHint).toBe(true);
    const jobs = tools.find((t) => t.name === 'jobs_list')!;
    expect(jobs.inputSchema.properties).toHaveProperty(
      'state',
      expect.objectContaining({ enum: ['queued', 'running', 'succeeded', 'failed', 'gone'] }),
    );
  });

  it('creates a model (structured result)', async () => {
    const result = await call(c, 'models_create', {
      name,
      base_model: 'OpenPipe/Qwen3-14B-Instruct',
      return_existing: true,
    });
    expect(result.isError, text(result)).toBeFalsy();
    const model = result.structuredContent as { id: string; name: string };
    expect(model.name).toBe(name);
    modelId = model.id;
    expect(JSON.parse(text(result))).toEqual(model);
  });

  it('creates an RL job and waits for it, with progress notifications', async () => {
    const created = await call(c, 'jobs_create_rl', { model: name, file: GROUPS });
    expect(created.isError, text(created)).toBeFalsy();
    const job = created.structuredContent as { id: string; state: string; model_id: string };
    expect(job.model_id).toBe(modelId);
    const progress: Progress[] = [];
    const waited = await call(c, 'jobs_wait', { job: job.id }, { onprogress: (p) => progress.push(p) });
    expect(waited.isError, text(waited)).toBeFalsy();
    expect(waited.structuredContent).toMatchObject({ id: job.id, state: 'succeeded' });
    expect(progress.length).toBeGreaterThanOrEqual(1);
    // One per line of the wait's stderr, counted up.
    expect(progress.map((p) => p.progress)).toEqual(progress.map((_, i) => i + 1));
    expect(progress.some((p) => /step|training/i.test(p.message ?? ''))).toBe(true);
  });

  it('lists the checkpoints the job made', async () => {
    const result = await call(c, 'checkpoints_list', { model: name, order: 'desc', limit: 5 });
    expect(result.isError, text(result)).toBeFalsy();
    const { result: checkpoints } = result.structuredContent as { result: Array<{ step: number }> };
    expect(checkpoints.length).toBeGreaterThan(1);
    expect(checkpoints[0]!.step).toBeGreaterThan(0);
  });

  it('evaluates the first checkpoint against the latest', async () => {
    const progress: Progress[] = [];
    const result = await call(
      c,
      'eval',
      { model: [`${name}:step0`, `${name}:latest`], tasks: TASKS, reward: 'exact' },
      { onprogress: (p) => progress.push(p) },
    );
    expect(result.isError, text(result)).toBeFalsy();
    expect(JSON.stringify(result.structuredContent)).toContain(`${name}:step0`);
    // A line per checkpoint sampled, at least.
    expect(progress.length).toBeGreaterThanOrEqual(1);
  });

  it('refuses a delete without confirm, sending nothing; deletes with it', async () => {
    const refused = await call(c, 'models_delete', { model: name });
    expect(refused.isError).toBe(true);
    expect(text(refused)).toMatch(/confirm: true/);
    expect(await emu.requests({ method: 'DELETE' })).toEqual([]);
    const still = await call(c, 'checkpoints_list', { model: name, limit: 1 });
    expect(still.isError, text(still)).toBeFalsy();

    const prunePlan = await call(c, 'checkpoints_prune', { model: name, keep_last: 1, dry_run: true });
    expect(prunePlan.isError, text(prunePlan)).toBeFalsy();
    expect(await emu.requests({ method: 'DELETE' })).toEqual([]);

    const deleted = await call(c, 'models_delete', { model: name, confirm: true });
    expect(deleted.isError, text(deleted)).toBeFalsy();
    const gone = await call(c, 'checkpoints_list', { model: modelId });
    expect(gone.isError).toBe(true);
    expect(gone.structuredContent).toMatchObject({ exit_code: 3 });
  });

  it('gives a failure as isError with the error line and exit code', async () => {
    const result = await call(c, 'jobs_get', { job: '00000000-0000-4000-8000-000000000000' });
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toMatchObject({ exit_code: 3 });
    expect(text(result)).toMatch(/^aip jobs get failed \(exit 3\): /);
  });

  it('cancels a wait, and answers after it', async () => {
    // The job takes an hour a step: the wait has nothing to end on but the cancellation.
    const jobId = await hourLongJob(c, 'mcp-slow');
    const eventsPath = `/training/v1/preview/training-jobs/${jobId}/events`;
    const before = (await emu.requests({ path: eventsPath })).length;
    const controller = new AbortController();
    const waiting = call(c, 'jobs_wait', { job: jobId }, { signal: controller.signal });
    // Cancelled once the wait is following the job's events.
    await waitFor(
      async () => (await emu.requests({ path: eventsPath })).length > before,
      undefined,
      'the wait polls',
    );
    controller.abort('enough');
    await expect(waiting).rejects.toThrow();
    // The wait ended as Ctrl-C ends it (exit 130), and the server goes on.
    await waitFor(() => /jobs_wait: exit 130/.test(c.stderr()), undefined, 'the wait stops');
    const job = await call(c, 'jobs_get', { job: jobId });
    expect(job.isError, text(job)).toBeFalsy();
    expect(job.structuredContent).toMatchObject({ id: jobId });
  });

  it('keeps a silent wait alive with heartbeats (--heartbeat), none once it is over', async () => {
    const beating = await connect([], ['--heartbeat', '0.1']);
    // Queued for an hour: the wait prints nothing after its first line.
    const jobId = await hourLongJob(beating, 'mcp-quiet');
    const messages: string[] = [];
    const controller = new AbortController();
    const waiting = call(
      beating,
      'jobs_wait',
      { job: jobId },
      {
        signal: controller.signal,
        onprogress: (p) => messages.push(p.message ?? ''),
      },
    );
    await waitFor(
      () => messages.filter((m) => /^still running \(\d+ s\)$/.test(m)).length >= 2,
      undefined,
      'heartbeats',
    );
    controller.abort('enough');
    await expect(waiting).rejects.toThrow();
    await waitFor(() => /jobs_wait: exit 130/.test(beating.stderr()), undefined, 'the wait stops');
    // Over: no progress of that call comes after it (its token is the client's; none is sent now).
    const after = beating.received.length;
    const job = await call(beating, 'jobs_get', { job: jobId });
    expect(job.isError, text(job)).toBeFalsy();
    expect(
      beating.received.slice(after).filter((m) => 'method' in m && m.method === 'notifications/progress'),
    ).toEqual([]);
  });

  it('serves the docs, the formats, each verb’s help, the history and the prompt', async () => {
    const { resources } = await c.client.listResources();
    const uris = resources.map((r) => r.uri);
    for (const uri of [
      'aip://help/jobs/create/rl',
      'aip://formats/trajectory-groups',
      'aip://formats/tasks',
      'aip://docs/commands',
      'aip://history',
    ])
      expect(uris).toContain(uri);
    // Each one reads (the docs are bundled into the build).
    for (const uri of uris) {
      const read = await c.client.readResource({ uri });
      expect((read.contents[0] as { text: string }).text.length, uri).toBeGreaterThan(1);
    }
    const help = await c.client.readResource({ uri: 'aip://help/jobs/create/rl' });
    expect(help.contents[0]).toMatchObject({ text: expect.stringContaining('--model <model>') });
    const format = await c.client.readResource({ uri: 'aip://formats/trajectory-groups' });
    expect(format.contents[0]).toMatchObject({ text: expect.stringContaining('messages_and_choices') });
    const history = await c.client.readResource({ uri: 'aip://history' });
    const entries = JSON.parse((history.contents[0] as { text: string }).text) as Array<{ command: string }>;
    expect(entries.map((e) => e.command)).toContain('jobs create rl');
    const prompt = await c.client.getPrompt({ name: 'train_agent', arguments: { tasks: 'tasks.jsonl' } });
    const said = JSON.stringify(prompt.messages);
    for (const tool of ['models_create', 'jobs_create_rl', 'jobs_wait', 'checkpoints_list', 'eval'])
      expect(said).toContain(tool);
  });

  it('offers no reward command or URL unless started with --allow-commands, and runs none', async () => {
    const dir = tempDir('aip-mcp-reward-');
    const tasks = join(dir, 'tasks.jsonl');
    const replies = join(dir, 'replies.jsonl');
    writeFileSync(
      tasks,
      `${JSON.stringify({ id: 't1', messages: [{ role: 'user', content: '2+2?' }], reference: '4' })}\n`,
    );
    writeFileSync(replies, `${JSON.stringify({ task_id: 't1', replies: ['4', '5'] })}\n`);
    const scoring = (marker: string) => ({ tasks, replies, reward_cmd: `touch ${marker}; echo 1` });
    const inputs = async (client: Client, tool: string) =>
      Object.keys(
        (await client.listTools()).tools.find((t) => t.name === tool)!.inputSchema.properties ?? {},
      );
    for (const tool of ['rollouts', 'eval', 'train_rl', 'reward_test']) {
      const offered = await inputs(c.client, tool);
      expect(offered, tool).toContain('reward');
      for (const input of ['reward_cmd', 'reward_server', 'reward_url'])
        expect(offered, tool).not.toContain(input);
    }
    // Given all the same, it is dropped: the command never runs (and with no reward left, the call fails).
    const refused = await call(c, 'reward_test', scoring(join(dir, 'not-run')));
    expect(refused.isError).toBe(true);
    expect(existsSync(join(dir, 'not-run'))).toBe(false);
    // Allowed by whoever started the server: offered, and run.
    const allowed = await connect([], ['--allow-commands']);
    for (const tool of ['rollouts', 'eval', 'train_rl', 'reward_test'])
      expect(await inputs(allowed.client, tool), tool).toEqual(
        expect.arrayContaining(['reward_cmd', 'reward_server', 'reward_url']),
      );
    const ran = await call(allowed, 'reward_test', scoring(join(dir, 'run')));
    expect(ran.isError, text(ran)).toBeFalsy();
    expect(existsSync(join(dir, 'run'))).toBe(true);
  });

  it('fails a call whose output is too large or bytes, alone: the server goes on', async () => {
    // 40,000 generated spans are some 23 MB of JSON Lines: past the 16 MB a result may be.
    const large = await call(c, 'traces_generate', { spans: 40_000 });
    expect(large.isError).toBe(true);
    expect(text(large)).toMatch(/passed 16 MB, and it was stopped there: give it a file to write to/);
    const binary = await call(c, 'traces_generate', { spans: 10, format: 'protobuf' });
    expect(binary.isError).toBe(true);
    expect(text(binary)).toMatch(/bytes, not text/);
    const health = await call(c, 'health', {});
    expect(health.isError, text(health)).toBeFalsy();
  });

  it('never lets the key out, and stdout carried nothing but JSON-RPC', async () => {
    // The tools most likely to show a key: they describe it.
    for (const tool of ['auth_status', 'config_list', 'doctor']) await call(c, tool, {});
    await call(c, 'jobs_create_rl', { model: 'nope', file: GROUPS, dry_run: true });
    const all = JSON.stringify(c.received);
    expect(c.received.length).toBeGreaterThan(20);
    expect(all).not.toContain(emu.key);
    expect(all).not.toContain(Buffer.from(`api:${emu.key}`).toString('base64'));
    expect(c.stderr()).not.toContain(emu.key);
    expect(c.errors).toEqual([]);
  });
});

describe('aip mcp --read-only, raw', () => {
  it('offers only tools that read, and writes only JSON-RPC lines on stdout', async () => {
    const env = serverEnv();
    const child = spawn(process.execPath, [BIN, 'mcp', '--read-only'], { env, stdio: 'pipe' });
    const done = collect(child, patience(60_000));
    const lines: string[] = [];
    let buffer = '';
    child.stdout.on('data', (chunk: Buffer) => {
      buffer += chunk.toString('utf8');
      const parts = buffer.split('\n');
      buffer = parts.pop()!;
      lines.push(...parts);
    });
    const send = (message: unknown) => child.stdin.write(`${JSON.stringify(message)}\n`);
    send({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    });
    await waitFor(() => lines.length >= 1, undefined, 'the initialize answer');
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
    send({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'health', arguments: {} } });
    await waitFor(() => lines.length >= 3, undefined, 'the answers');
    // A last call, and stdin closed at once: it is answered before the server stops.
    send({ jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'jobs_list', arguments: {} } });
    child.stdin.end();
    // Stdin closed: it stops by itself once it has answered (exit 0; a SIGTERM would be 143).
    const ended = await done;
    expect(ended.code, ended.stderr).toBe(0);
    expect(ended.signal).toBeNull();
    // Read-only keeps no history of its calls.
    expect(existsSync(join(env.AIP_DATA_DIR!, 'history', 'journal'))).toBe(false);
    const messages = lines.map(
      (line) => JSON.parse(line) as { jsonrpc: string; id?: number; result?: unknown },
    );
    for (const message of messages) expect(message.jsonrpc).toBe('2.0');
    expect(buffer).toBe('');
    const { tools } = messages.find((m) => m.id === 2)!.result as {
      tools: Array<{ name: string; annotations: { readOnlyHint?: boolean; destructiveHint?: boolean } }>;
    };
    expect(tools.length).toBeGreaterThan(10);
    for (const tool of tools) {
      expect(tool.annotations.readOnlyHint, tool.name).toBe(true);
      expect(tool.annotations.destructiveHint, tool.name).toBe(false);
    }
    const names = tools.map((t) => t.name);
    for (const changing of [
      'models_create',
      'models_delete',
      'jobs_create_rl',
      'checkpoints_prune',
      'rollouts',
      'chat',
    ])
      expect(names).not.toContain(changing);
    expect(names).toEqual(expect.arrayContaining(['checkpoints_list', 'jobs_wait', 'health']));
    const health = messages.find((m) => m.id === 3)!.result as CallToolResult;
    expect(health.isError).toBeFalsy();
    expect(messages.find((m) => m.id === 4)?.result).toMatchObject({ structuredContent: { result: [] } });
  });
});

describe('aip mcp, stopped', () => {
  it('hands its global options to every call; Ctrl-C interrupts the calls under way and ends it (130)', async () => {
    const model = await emu.api('POST', '/preview/models', {
      entity: 'local',
      project: 'demo',
      name: 'mcp-stopped',
      base_model: 'OpenPipe/Qwen3-14B-Instruct',
    });
    await emu.control('POST', '/job-plans', { steps: 3, step_ms: 3_600_000, times: 1 });
    const job = await emu.api('POST', '/preview/training-jobs', {
      model_id: model.body.id,
      trajectory_groups: [
        { trajectories: [{ messages_and_choices: [{ role: 'user', content: 'hi' }], reward: 1 }] },
      ],
    });
    await emu.control('POST', '/job-plans', { step_ms: 2 });
    expect(job.status, JSON.stringify(job.body)).toBeLessThan(300);

    const child = spawn(process.execPath, [BIN, '--project', 'team/other', 'mcp'], {
      env: serverEnv(),
      stdio: 'pipe',
    });
    const done = collect(child, patience(60_000));
    const answers = new Map<number, { result?: CallToolResult }>();
    let buffer = '';
    child.stdout.on('data', (chunk: Buffer) => {
      buffer += chunk.toString('utf8');
      const parts = buffer.split('\n');
      buffer = parts.pop()!;
      for (const line of parts) {
        const message = JSON.parse(line) as { id?: number; result?: CallToolResult };
        if (message.id !== undefined) answers.set(message.id, message);
      }
    });
    const send = (message: unknown) => child.stdin.write(`${JSON.stringify(message)}\n`);
    const call = (id: number, name: string, args: Record<string, unknown>) =>
      send({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });
    send({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    });
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    call(2, 'config_get', { key: 'project' });
    await waitFor(() => answers.has(2), undefined, 'config_get');
    expect(answers.get(2)!.result!.structuredContent).toMatchObject({ value: 'team/other' });

    const eventsPath = `/training/v1/preview/training-jobs/${job.body.id}/events`;
    call(3, 'jobs_wait', { job: job.body.id, project: 'local/demo' });
    await waitFor(
      async () => (await emu.requests({ path: eventsPath })).length > 0,
      undefined,
      'the wait polls',
    );
    child.kill('SIGINT');
    const ended = await done;
    expect(ended.code, ended.stderr).toBe(130);
    expect(ended.stderr).toMatch(/jobs_wait: exit 130/);
    expect(ended.stderr).toMatch(/Resume with: aip .*jobs wait/);
  });
});
