// `aip traces list`, `show` and `tail`, in-process: over the tee's store (requests appended by the
// writer, as `traces serve --tee` appends them) and over a real emulator's spans (sent with `aip
// traces send`); tables, --json, --jsonl, --jq, -q; prefixes of trace ids; hostile span names.

import { EventEmitter } from 'node:events';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { describe, expect, it } from 'vitest';
import { Context } from '../../src/context.js';
import { openTeeWriter } from '../../src/traces/store/writer.js';
import { runCli, tempConfigDir } from '../helpers/cli.js';
import { useEmulator } from '../helpers/emulator.js';
import { fakeIO } from '../helpers/io.js';
import { waitFor } from '../helpers/wait.js';
import { agentTurn, hexId, request, span, str } from '../traces/store/requests.js';

function envFor() {
  const dir = tempConfigDir();
  return { AIP_CONFIG_DIR: dir, AIP_DATA_DIR: join(dir, 'data'), AIP_EMULATOR_SQLITE: 'wasm' };
}

/** Three turns kept by the tee: 1 and 3 fine, 2 with a failed tool call and another model. */
function keep(env: Record<string, string>) {
  const writer = openTeeWriter(env);
  writer.append(request(agentTurn(1)));
  writer.append(request(agentTurn(2, { toolError: true, model: 'Qwen/Qwen3-14B-Instruct' })));
  writer.append(request(agentTurn(3)));
  writer.close();
}

describe('aip traces list (the local store)', () => {
  it('lists traces newest first: a table on a terminal, rows piped', async () => {
    const env = envFor();
    keep(env);
    const tty = await runCli('traces list', { env, stdoutTTY: true, columns: 160 });
    expect(tty.code).toBe(0);
    const [header, ...rows] = stripVTControlCharacters(tty.stdout).trimEnd().split('\n');
    expect(header).toMatch(/^TRACE\s+ROOT\s+START\s+DURATION\s+SPANS\s+ERRORS\s+TOKENS IN\/OUT\s+MODELS$/);
    expect(rows).toHaveLength(3);
    expect(rows[0]).toMatch(
      /^000000000000\s+invoke_agent support\s+.+\s+500ms\s+3\s+0\s+120\/30\s+openai\/gpt-oss-20b$/,
    );
    expect(rows[1]).toMatch(/\s3\s+1\s+120\/30\s+Qwen\/Qwen3-14B-Instruct$/);
    const piped = await runCli('traces list', { env });
    expect(piped.stdout.split('\n')[0]).toBe(
      `${hexId(3, 16)}\tinvoke_agent support\t2026-11-20T10:00:03.000Z\t500ms\t3\t0\t120/30\topenai/gpt-oss-20b`,
    );
  });

  it('--json, --jsonl, --jq, -q', async () => {
    const env = envFor();
    keep(env);
    const json = JSON.parse((await runCli('traces list --json', { env })).stdout);
    expect(json).toHaveLength(3);
    expect(json[1]).toEqual({
      trace_id: hexId(2, 16),
      root: 'invoke_agent support',
      start: '2026-11-20T10:00:02.000Z',
      duration_ms: 500,
      spans: 3,
      errors: 1,
      input_tokens: 120,
      output_tokens: 30,
      models: ['Qwen/Qwen3-14B-Instruct'],
      services: ['agent'],
      projects: [],
    });
    const lines = (await runCli('traces list --jsonl', { env })).stdout.trimEnd().split('\n');
    expect(lines.map((l) => JSON.parse(l).trace_id)).toEqual([3, 2, 1].map((n) => hexId(n, 16)));
    expect(
      (await runCli(['traces', 'list', '--jq', '.[] | select(.errors > 0) | .trace_id'], { env })).stdout,
    ).toBe(`${hexId(2, 16)}\n`);
    expect((await runCli('traces list -q --limit 1', { env })).stdout).toBe(`${hexId(3, 16)}\n`);
  });

  it('--filter and --since; a bad filter is one line, exit 2, before anything is read', async () => {
    const env = envFor();
    keep(env);
    const ids = async (args: string[]) =>
      JSON.parse((await runCli(['traces', 'list', '--json', ...args], { env })).stdout).map(
        (t: { trace_id: string }) => t.trace_id.slice(-1),
      );
    expect(await ids(['--filter', 'error'])).toEqual(['2']);
    expect(await ids(['--filter', 'model=openai/gpt-oss-20b', '--filter', 'no-error'])).toEqual(['3', '1']);
    expect(await ids(['--filter', 'tool=search_docs,tokens>100'])).toEqual(['3', '2', '1']);
    // The spans are of 2026-11-20: none started in the last hour, all since that day.
    expect(await ids(['--since', '1h'])).toEqual([]);
    expect(await ids(['--since', '2026-11-20'])).toEqual(['3', '2', '1']);
    const bad = await runCli(['traces', 'list', '--filter', 'colour=red'], { env });
    expect(bad.code).toBe(2);
    expect(bad.stderr.split('\n')[0]).toMatch(
      /^error: --filter "colour=red": unknown key "colour"; terms: error, /,
    );
  });

  it('says why nothing is listed', async () => {
    const env = envFor();
    const none = await runCli('traces list', { env });
    expect(none).toMatchObject({ code: 0, stdout: '' });
    expect(none.stderr).toContain('No trace is in the local store');
    keep(env);
    expect((await runCli('traces list --filter name=nothing', { env })).stderr).toContain('No trace matches');
  });
});

describe('aip traces show (the local store)', () => {
  it('draws the tree with a waterfall on a terminal, from a unique prefix', async () => {
    const env = envFor();
    keep(env);
    const id = hexId(2, 16);
    const shown = await runCli(['traces', 'show', id], { env, stdoutTTY: true, columns: 120 });
    expect(shown.stderr).toBe('');
    expect(shown.code).toBe(0);
    const lines = stripVTControlCharacters(shown.stdout).trimEnd().split('\n');
    expect(lines[0]).toContain(`trace ${id}`);
    expect(lines[0]).toMatch(/invoke_agent support .*500ms {2}3 spans {2}.*1 error.* {2}120\/30 tokens/);
    expect(lines[1]).toMatch(/^invoke_agent support\s+500ms\s+.*█+/);
    expect(lines[2]).toMatch(
      /^├─ chat Qwen\/Qwen3-14B-Instruct\s+400ms .*█.*Qwen\/Qwen3-14B-Instruct {2}120\/30 tokens$/,
    );
    expect(lines[3]).toMatch(/^└─ execute_tool search_docs\s+50ms .*error: timed out .*tool search_docs$/);
    // A unique prefix, in any case, names it.
    const writer = openTeeWriter(env);
    writer.append(request(agentTurn(0xc00)));
    writer.close();
    const byPrefix = await runCli(['traces', 'show', `${'0'.repeat(29)}C`, '--json'], { env });
    expect(JSON.parse(byPrefix.stdout).trace.trace_id).toBe(hexId(0xc00, 16));
  });

  it('--json: the summary and spans in tree order; --jsonl: the spans; -q: span ids', async () => {
    const env = envFor();
    keep(env);
    const id = hexId(1, 16);
    const json = JSON.parse((await runCli(['traces', 'show', id, '--json'], { env })).stdout);
    expect(json.trace).toMatchObject({ trace_id: id, spans: 3, errors: 0 });
    expect(json.spans.map((s: { depth: number; name: string }) => [s.depth, s.name])).toEqual([
      [0, 'invoke_agent support'],
      [1, 'chat openai/gpt-oss-20b'],
      [1, 'execute_tool search_docs'],
    ]);
    expect(json.spans[1].attributes).toContainEqual({
      key: 'gen_ai.request.model',
      value: { stringValue: 'openai/gpt-oss-20b' },
    });
    const lines = (await runCli(['traces', 'show', id, '--jsonl'], { env })).stdout.trimEnd().split('\n');
    expect(lines.map((l) => JSON.parse(l).span_id)).toEqual([17, 18, 19].map((n) => hexId(n, 8)));
    expect((await runCli(['traces', 'show', id, '-q'], { env })).stdout).toBe(
      `${[17, 18, 19].map((n) => hexId(n, 8)).join('\n')}\n`,
    );
  });

  it('an ambiguous prefix is exit 2, an unknown one exit 3, a word that is no id exit 2: one line each', async () => {
    const env = envFor();
    keep(env);
    const ambiguous = await runCli('traces show 0000', { env });
    expect(ambiguous.code).toBe(2);
    expect(ambiguous.stderr).toMatch(
      /^error: 0000 is ambiguous in the local store \(0{31}1, 0{31}2, …\): give more of the trace id\n/,
    );
    const unknown = await runCli('traces show ffff', { env });
    expect(unknown.code).toBe(3);
    expect(unknown.stderr).toMatch(/^error: no trace in the local store starts with ffff\n/);
    const word = await runCli(['traces', 'show', '__proto__'], { env });
    expect(word.code).toBe(2);
    expect(word.stderr).toMatch(/^error: "__proto__" is not a trace id: expected up to 32 hex digits\n/);
  });

  it('shows hostile names and ids harmlessly', async () => {
    const env = envFor();
    const trace = 'b'.repeat(32);
    const writer = openTeeWriter(env);
    writer.append(
      request(
        [
          span({ trace, span: '1'.repeat(16), name: 'evil\u001b]52;c;ZXZpbA==\u0007\u001b[2J\nforged row' }),
          span({
            trace,
            span: '2'.repeat(16),
            parent: '1'.repeat(16),
            name: '__proto__',
            attributes: [str('__proto__', 'x'), str('gen_ai.tool.name', '\u001b[31mtool')],
          }),
        ],
        [str('service.name', 'constructor')],
      ),
    );
    writer.close();
    for (const stdoutTTY of [true, false]) {
      const shown = await runCli(['traces', 'show', 'bb'], { env, stdoutTTY });
      expect(shown.code).toBe(0);
      expect(shown.stdout).not.toMatch(/\u001b\]|\u0007|\u001b\[2J/);
      expect(shown.stdout).toContain('evil^[]52;c;ZXZpbA==^G^[[2J^Jforged row');
      expect(shown.stdout).toContain('└─ __proto__');
      const listed = await runCli('traces list', { env, stdoutTTY });
      expect(listed.stdout.trimEnd().split('\n')).toHaveLength(stdoutTTY ? 2 : 1);
    }
    const json = JSON.parse((await runCli(['traces', 'show', 'bb', '--json'], { env })).stdout);
    expect(json.spans[1]).toMatchObject({
      name: '__proto__',
      tool: '\u001b[31mtool',
      service: 'constructor',
    });
    expect(json.spans[1].attributes[0]).toEqual({ key: '__proto__', value: { stringValue: 'x' } });
  });
});

describe('aip traces tail (the local store)', () => {
  function tailContext(env: Record<string, string>, globals: { jsonl?: boolean }) {
    const { io, stdout, stderr } = fakeIO({ env });
    const signals = new EventEmitter();
    const ctx = new Context({
      env,
      io,
      transport: async () => {
        throw new Error('nothing is sent');
      },
      sleep: async () => undefined,
      random: () => 0.5,
      signals,
    });
    ctx.globals = globals;
    io.configure(globals);
    return { ctx, stdout, stderr, signals };
  }

  it('prints each trace once its root has come, as the tee appends; Ctrl-C ends it (exit 130)', async () => {
    const env = envFor();
    keep(env); // before the tail: not printed
    const { ctx, stdout, stderr, signals } = tailContext(env, { jsonl: true });
    const { runTail } = await import('../../src/commands/traces/tail.run.js');
    const running = runTail(ctx, { interval: 60_000 });
    await waitFor(() => stderr.text.includes('Following the local store'));
    const writer = openTeeWriter(env);
    const [chat, tool, root] = agentTurn(7);
    writer.append(request([chat!, tool!]));
    writer.append(
      request([span({ trace: hexId(8, 16), span: hexId(99, 8), parent: hexId(98, 8), name: 'orphan' })]),
    );
    // The root last, as SDKs export it (it ends last): the trace is printed then, whole.
    writer.append(request([root!]));
    // No poll for a minute: the journal's change wakes it.
    await waitFor(() => stdout.text.includes('\n'), 20_000, 'the trace printed');
    signals.emit('SIGINT');
    await expect(running).rejects.toMatchObject({ name: 'InterruptedError' });
    writer.close();
    const lines = stdout.text
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines).toEqual([expect.objectContaining({ trace_id: hexId(7, 16), spans: 3, input_tokens: 120 })]);
  });

  it('--spans prints every span as it arrives', async () => {
    const env = envFor();
    const { ctx, stdout, stderr, signals } = tailContext(env, {});
    const { runTail } = await import('../../src/commands/traces/tail.run.js');
    const running = runTail(ctx, { spans: true, interval: 60_000 });
    await waitFor(() => stderr.text.includes('Following'));
    const writer = openTeeWriter(env);
    writer.append(request(agentTurn(4)));
    await waitFor(() => stdout.text.trimEnd().split('\n').length === 3, 20_000, 'three spans printed');
    signals.emit('SIGINT');
    await expect(running).rejects.toMatchObject({ name: 'InterruptedError' });
    writer.close();
    expect(stdout.text.split('\n')[0]).toMatch(
      new RegExp(`^${hexId(4, 16)}\t${hexId(66, 8)}\tchat openai/gpt-oss-20b\t`),
    );
  });
});

describe('over the emulator (--emulator)', () => {
  const { emu, run } = useEmulator();

  it('lists, shows and resolves prefixes of the spans the emulator kept', async () => {
    const file = join(tempConfigDir(), 'spans.pb');
    writeFileSync(
      file,
      request(agentTurn(5, { toolError: true }), [
        str('service.name', 'agent'),
        str('wandb.entity', 'local'),
        str('wandb.project', 'demo'),
      ]),
    );
    expect((await run(['traces', 'send', file])).code).toBe(0);
    const listed = JSON.parse((await run('traces list --emulator --json')).stdout);
    expect(listed).toEqual([
      expect.objectContaining({
        trace_id: hexId(5, 16),
        root: 'invoke_agent support',
        spans: 3,
        errors: 1,
        projects: ['local/demo'],
      }),
    ]);
    const shown = await run(['traces', 'show', '--emulator', '00000000000000000000000000000005']);
    expect(shown.code).toBe(0);
    expect(shown.stdout.split('\n')[2]).toMatch(
      /^├─ chat openai\/gpt-oss-20b {2}400ms {2}openai\/gpt-oss-20b {2}120\/30 tokens$/,
    );
    const prefix = JSON.parse((await run(['traces', 'show', '--emulator', '0000000', '--json'])).stdout);
    expect(prefix.trace.trace_id).toBe(hexId(5, 16));
    expect((await run('traces show --emulator ffff')).code).toBe(3);
    // The local store holds nothing of it.
    expect((await run('traces list --json')).stdout).toBe('[]\n');
    expect(emu.origin).toMatch(/^http:/);
  });

  it('a trace URL where nothing answers is one line', async () => {
    const elsewhere = await run('traces list --emulator', {
      env: { AIP_TRACE_URL: 'http://127.0.0.1:9/trace' },
    });
    expect(elsewhere.code).toBe(1);
    expect(elsewhere.stderr.trimEnd().split('\n').at(-1)).toBe(
      'error: emulator at http://127.0.0.1:9 unreachable: GET /_emulator/spans could not connect (ECONNREFUSED) (after 4 attempts)',
    );
  });
});
