// `aip traces serve` as a process between the official OpenTelemetry exporters and the emulator's
// trace ingest, over real HTTP: everything the exporters were told was taken reaches the platform
// under its project, once, whether the platform stays up, goes away and comes back, or the gateway is
// killed with SIGKILL after acknowledging (its spool is sent on the next start).

import type { ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type RunningEmulator, startEmulator } from '../../../src/emulator/index.js';
import { send, TEST_KEY } from '../../helpers/emulator.js';
import { patience } from '../../helpers/patience.js';
import { hasScript, startTerminal } from '../../helpers/pty.js';
import { collect, runAip, type Spawned, startAip } from '../../helpers/spawn.js';
import { tempDir } from '../../helpers/temp.js';
import { waitFor } from '../../helpers/wait.js';
import { exportSpans } from './exporter.js';

const children: ChildProcess[] = [];
const emulators: RunningEmulator[] = [];
/** Killed if still running, and waited for: its files are gone before the temp directories are. */
async function killed(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
}

afterEach(async () => {
  for (const child of children.splice(0)) await killed(child);
  for (const emu of emulators.splice(0)) await emu.close().catch(() => undefined);
});

async function emulator(options: { port?: number; stateDir?: string } = {}): Promise<RunningEmulator> {
  const emu = await startEmulator({
    port: options.port ?? 0,
    apiKeys: [TEST_KEY],
    stateDir: options.stateDir,
  });
  emulators.push(emu);
  return emu;
}

async function stopEmulator(emu: RunningEmulator): Promise<void> {
  emulators.splice(emulators.indexOf(emu), 1);
  await emu.close();
}

interface Stored {
  accepted: number;
  duplicates: number;
  by_project: Record<string, number>;
  total: number;
  data: Array<{ project: string; span: { traceId: string; spanId: string } }>;
}

async function stored(emu: RunningEmulator, limit = 0): Promise<Stored> {
  const res = await send(`${emu.origin}/_emulator/spans?limit=${limit}`, 'GET', {
    authorization: `Bearer ${TEST_KEY}`,
  });
  return JSON.parse(res.text) as Stored;
}

function gatewayEnv(emu: RunningEmulator, data = tempDir('aip-gateway-')): Record<string, string> {
  return {
    AIP_CONFIG_DIR: tempDir('aip-gateway-config-'),
    AIP_DATA_DIR: data,
    AIP_BASE_URL: emu.urls.base,
    AIP_INFERENCE_URL: emu.urls.inference,
    AIP_TRACE_URL: emu.urls.trace,
    AIP_API_KEY: TEST_KEY,
    AIP_PROJECT: 'local/demo',
  };
}

interface Gateway {
  origin: string;
  child: ChildProcess;
  /** Ctrl-C, and what it printed. */
  stop(): Promise<Spawned>;
}

async function startGateway(env: Record<string, string>, args: string[] = []): Promise<Gateway> {
  const { child, match, stderr } = await startAip(
    ['traces', 'serve', '--port', '0', '--json', ...args],
    env,
    /Listening on (http:\/\/127\.0\.0\.1:\d+)\//,
  );
  children.push(child);
  const done = collect(child, patience(60_000));
  return {
    origin: match[1]!,
    child,
    stop: async () => {
      child.kill('SIGINT');
      // All it wrote on stderr, from the start (collect() hears only what came after it).
      return { ...(await done), stderr: stderr() };
    },
  };
}

/** Every file under `dir`, read as text, one after another: what a scan for the key looks at. */
function readTree(dir: string): string {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => readFileSync(join(e.parentPath, e.name)).toString('latin1'))
    .join('\n');
}

const idsOf = (s: Stored) => s.data.map((r) => `${r.span.traceId}${r.span.spanId}`).sort();

/** What the emulator keeps: each acknowledged span, once, and nothing else. */
async function arrivedOnce(emu: RunningEmulator, acknowledged: readonly string[]): Promise<Stored> {
  const s = await stored(emu, 10_000);
  expect(s.duplicates).toBe(0);
  expect(idsOf(s)).toEqual([...acknowledged].sort());
  return s;
}

/**
 * An emulator with a state directory of its own, and the gateway's environment for it: `away()` stops
 * it, `back()` starts it again on the same port and state (the platform gone, then back).
 */
async function platformThatGoes() {
  const stateDir = tempDir('aip-gateway-state-');
  const emu = await emulator({ stateDir });
  const port = Number(new URL(emu.origin).port);
  return { env: gatewayEnv(emu), away: () => stopEmulator(emu), back: () => emulator({ port, stateDir }) };
}

describe('aip traces serve', () => {
  it('forwards what the official exporters send, protobuf and JSON, each resource to its project', {
    timeout: patience(120_000),
  }, async () => {
    const emu = await emulator();
    const gateway = await startGateway(gatewayEnv(emu));
    const proto = await exportSpans(gateway.origin, 'protobuf', 300);
    const json = await exportSpans(gateway.origin, 'json', 250);
    const own = await exportSpans(gateway.origin, 'protobuf', 40, {
      resource: { 'wandb.entity': 'other-team', 'wandb.project': 'agents' },
    });
    for (const e of [proto, json, own]) expect(e.failed).toEqual([]);
    const r = await gateway.stop();
    expect(r.code, r.stderr).toBe(0);
    expect(`${r.stdout}${r.stderr}`).not.toContain(TEST_KEY);
    const counters = JSON.parse(r.stdout);
    expect(counters).toMatchObject({ received: 590, forwarded: 590, spooled: 0, dropped: 0, refused: 0 });
    const s = await arrivedOnce(emu, [...proto.acknowledged, ...json.acknowledged, ...own.acknowledged]);
    expect(s.by_project).toEqual({ 'local/demo': 550, 'other-team/agents': 40 });
  });

  it('the platform stopped mid-way and back: every acknowledged span arrives, once', {
    timeout: patience(180_000),
  }, async () => {
    const platform = await platformThatGoes();
    const { env } = platform;
    const gateway = await startGateway(env);
    const before = await exportSpans(gateway.origin, 'protobuf', 200);
    await platform.away();
    const during = await exportSpans(gateway.origin, 'json', 300, { perBatch: 50 });
    expect([before.failed, during.failed]).toEqual([[], []]);
    const emu = await platform.back();
    const acknowledged = [...before.acknowledged, ...during.acknowledged].sort();
    await waitFor(
      async () => (await stored(emu)).total === acknowledged.length,
      patience(90_000),
      'the spool sent',
    );
    const r = await gateway.stop();
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({
      received: 500,
      spooled: 300,
      forwarded: 500,
      spool: { batches: 0 },
    });
    await arrivedOnce(emu, acknowledged);
  });

  it('killed with SIGKILL after acknowledging: the next start sends its spool, nothing lost or twice', {
    timeout: patience(180_000),
  }, async () => {
    const platform = await platformThatGoes();
    const { env } = platform;
    await platform.away();
    const first = await startGateway(env);
    const exported = await exportSpans(first.origin, 'protobuf', 250, { perBatch: 60 });
    expect(exported.failed).toEqual([]);
    first.child.kill('SIGKILL');
    await new Promise((resolve) => first.child.once('exit', resolve));
    const emu = await platform.back();
    const second = await startGateway(env);
    await waitFor(
      async () => (await stored(emu)).total === 250,
      patience(90_000),
      'the spool sent on restart',
    );
    const r = await second.stop();
    expect(r.code, r.stderr).toBe(0);
    expect(`${r.stdout}${r.stderr}${readTree(env.AIP_DATA_DIR!)}`).not.toContain(TEST_KEY);
    expect(r.stderr).toContain('The spool holds 250 spans from before');
    await arrivedOnce(emu, exported.acknowledged);
  });

  it('aip traces flush sends a spool left behind, and is refused while a gateway owns it', {
    timeout: patience(120_000),
  }, async () => {
    const platform = await platformThatGoes();
    const { env } = platform;
    await platform.away();
    const gateway = await startGateway(env);
    const exported = await exportSpans(gateway.origin, 'json', 120, { perBatch: 40 });
    expect(exported.failed).toEqual([]);
    const busy = await runAip(['traces', 'flush'], { env });
    expect(busy.code).toBe(1);
    expect(busy.stderr).toMatch(/^error: the trace spool .* belongs to another aip \(pid \d+@/m);
    const stopped = await gateway.stop();
    expect(JSON.parse(stopped.stdout)).toMatchObject({ spool: { batches: 3, spans: 120 } });
    expect(stopped.code).toBe(0);
    const down = await runAip(['traces', 'flush', '--json'], { env });
    expect(down.code).not.toBe(0);
    expect(JSON.parse(down.stdout)).toMatchObject({ sent: 0, left: { batches: 3, spans: 120 } });
    const emu = await platform.back();
    const flushed = await runAip(['traces', 'flush', '--json'], { env });
    expect(flushed.code, flushed.stderr).toBe(0);
    expect(JSON.parse(flushed.stdout)).toMatchObject({
      sent: 120,
      batches: 3,
      left: { batches: 0, spans: 0 },
    });
    expect(idsOf(await stored(emu, 10_000))).toEqual(exported.acknowledged.sort());
    const empty = await runAip(['traces', 'flush'], { env });
    expect([empty.code, empty.stderr.trim()]).toEqual([0, 'The spool is empty: nothing to send']);
  });
});

describe('aip traces serve, stopped', () => {
  it('by Ctrl-C while a batch is in flight: it waits for it, and every span it acknowledged arrives', {
    timeout: patience(120_000),
  }, async () => {
    const emu = await emulator();
    const control = (method: string, path: string, body?: unknown) =>
      send(
        `${emu.origin}/_emulator${path}`,
        method,
        { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
        body === undefined ? undefined : JSON.stringify(body),
      );
    // The first batch the gateway forwards is held by the platform for a while.
    await control('POST', '/faults', { path: '/trace/**', delay_ms: 1500, times: 1 });
    const gateway = await startGateway(gatewayEnv(emu));
    const exporting = exportSpans(gateway.origin, 'protobuf', 200, { perBatch: 50 });
    await waitFor(
      async () =>
        (JSON.parse((await control('GET', '/faults')).text) as { data: Array<{ remaining: number }> }).data[0]
          ?.remaining === 0,
      patience(30_000),
      'a batch in flight',
    );
    const stopped = gateway.stop();
    const exported = await exporting;
    const r = await stopped;
    expect(r.code, r.stderr).toBe(0);
    const counters = JSON.parse(r.stdout);
    expect(exported.acknowledged.length).toBeGreaterThanOrEqual(50);
    expect(counters.forwarded + counters.spool.spans).toBe(exported.acknowledged.length);
    await arrivedOnce(emu, exported.acknowledged);
  });
});

describe.runIf(hasScript)('aip traces serve on a terminal', () => {
  it('shows a status line of what it received and forwarded; Ctrl-C stops it with the counts', {
    timeout: patience(120_000),
  }, async () => {
    const emu = await emulator();
    const term = startTerminal(['traces', 'serve', '--port', '0'], gatewayEnv(emu));
    try {
      await term.waitFor(/Listening on http:\/\/127\.0\.0\.1:\d+\//);
      const origin = /Listening on (http:\/\/127\.0\.0\.1:\d+)\//.exec(term.screen())![1]!;
      const exported = await exportSpans(origin, 'protobuf', 120);
      expect(exported.failed).toEqual([]);
      // Redrawn every second: it comes to show the spans once they are forwarded.
      await term.waitFor(/received 120 · forwarded 120 · spooled 0 · dropped 0 · [\d,]+ spans\/s/);
      term.type('\u0003');
      expect(await term.exited).toBe(0);
      expect(term.screen()).toMatch(/received 120 · forwarded 120 · spooled 0 · dropped 0\s*$/);
    } finally {
      term.kill();
    }
  });
});

describe('aip traces serve --redact… --tee', () => {
  it('redacts before anything leaves, on span, event and resource attributes; keeps what passed for traces list and show', {
    timeout: patience(120_000),
  }, async () => {
    const emu = await emulator();
    const env = gatewayEnv(emu);
    const secret = 'sk-live-0123456789abcdefSECRET';
    const gateway = await startGateway(env, [
      '--redact-preset',
      'content',
      '--redact',
      `*=sk-live-[0-9a-zA-Z]+`,
      '--drop',
      'enduser.id',
      '--tee',
    ]);
    const exported = await exportSpans(gateway.origin, 'protobuf', 20, {
      resource: { 'deployment.token': secret },
      attributes: {
        'gen_ai.input.messages': `[{"role":"user","content":"my card is 4111 and ${secret}"}]`,
        'gen_ai.output.messages': '[{"role":"assistant","content":"noted"}]',
        'enduser.id': 'ada@example.com',
        'http.url': `https://api.example/?key=${secret}`,
      },
      event: {
        name: 'gen_ai.user.message',
        attributes: { content: 'the user said 4111', 'note.token': secret },
      },
    });
    const json = await exportSpans(gateway.origin, 'json', 5, {
      attributes: { 'enduser.id': 'bob@example.com' },
    });
    expect([exported.failed, json.failed]).toEqual([[], []]);
    const r = await gateway.stop();
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ received: 25, forwarded: 25 });
    expect(JSON.parse(r.stdout).redacted).toBeGreaterThanOrEqual(20 * 4 + 1 + 5);
    // The platform: nothing of the secret, the e-mail or the prompt; the routing and the rest intact.
    const s = await stored(emu, 1000);
    const text = JSON.stringify(s.data);
    for (const gone of [secret, 'ada@example.com', 'bob@example.com', '4111', 'noted'])
      expect(text).not.toContain(gone);
    expect(s.by_project).toEqual({ 'local/demo': 25 });
    expect(text).toContain('https://api.example/?key=[REDACTED]');
    expect(text).toContain('"gen_ai.request.model"');
    expect(text).toContain('gen_ai.user.message');
    expect(text).toContain('"deployment.token"');
    // The tee: the same spans, redacted alike, read back by traces list and show.
    const listed = await runAip(['traces', 'list', '--json'], { env });
    expect(listed.code, listed.stderr).toBe(0);
    const traces = JSON.parse(listed.stdout) as Array<{ trace_id: string; spans: number }>;
    expect(traces.reduce((n, t) => n + t.spans, 0)).toBe(25);
    const shown = await runAip(['traces', 'show', traces[0]!.trace_id.slice(0, 12), '--json'], { env });
    expect(shown.code, shown.stderr).toBe(0);
    expect(`${listed.stdout}${shown.stdout}${readTree(env.AIP_DATA_DIR!)}`).not.toContain(secret);
  });
});
