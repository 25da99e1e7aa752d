// Behind a proxy: the built aip, spawned with HTTPS_PROXY (or its kin) naming a test proxy in front of
// the emulator, reaches all three interfaces through it (the Training API with aip's own client, the
// Inference API through the openai SDK, trace ingest), with the key only ever inside TLS. The targets
// are https://training.test, inference.test and trace.test: names that are not loopback (a loopback
// target never goes through a proxy), tunnelled by the proxy to a TLS front of the emulator whose
// certificate aip trusts through NODE_EXTRA_CA_CERTS (read at start-up: hence a process, not main()).

import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { tempConfigDir } from '../helpers/cli.js';
import { useEmulator } from '../helpers/emulator.js';
import { closedPort } from '../helpers/ports.js';
import { runAip, type Spawned } from '../helpers/spawn.js';
import {
  makeCertificate,
  type ProxyRecord,
  startTestProxy,
  startTlsFront,
  type TestCertificate,
  type TestProxy,
} from './proxy-servers.js';

const HOSTS = fileURLToPath(new URL('./test-hosts.cjs', import.meta.url));
const SPANS = fileURLToPath(new URL('../fixtures/spans.json', import.meta.url));
const BASE_MODEL = 'OpenPipe/Qwen3-14B-Instruct';
const INFERENCE_MODEL = 'meta-llama/Llama-3.1-8B-Instruct';
const PASSWORD = 's3cr3t-proxy-pass';

const { emu } = useEmulator({ fresh: 'file' });
let certificate: TestCertificate;
let front: { port: number; close: () => Promise<void> };
let proxy: TestProxy;
/** Servers a test started besides the shared ones, closed after it. */
const extra: TestProxy[] = [];

beforeAll(async () => {
  certificate = makeCertificate();
  front = await startTlsFront(certificate, Number(new URL(emu.origin).port));
  proxy = await startTestProxy();
});

afterAll(async () => {
  await Promise.all([front?.close(), proxy?.close()]);
});

beforeEach(() => {
  proxy.records.length = 0;
});

afterEach(async () => {
  await Promise.all(extra.splice(0).map((server) => server.close()));
});

/** The emulator's interfaces at `scheme://<interface>.test:<port>`, its key, a config directory. */
function platformEnv(scheme = 'https', port = front.port): Record<string, string> {
  return {
    AIP_BASE_URL: `${scheme}://training.test:${port}/training/v1`,
    AIP_INFERENCE_URL: `${scheme}://inference.test:${port}/inference/v1`,
    AIP_TRACE_URL: `${scheme}://trace.test:${port}/trace`,
    AIP_API_KEY: emu.key,
    AIP_PROJECT: 'local/demo',
    AIP_CONFIG_DIR: tempConfigDir(),
    NODE_EXTRA_CA_CERTS: certificate.certFile,
    NODE_OPTIONS: `--require=${HOSTS}`,
  };
}

function aip(args: string[], env: Record<string, string>): Promise<Spawned> {
  return runAip(args, { env: { ...platformEnv(), ...env }, timeoutMs: 30_000 });
}

/** The host names the proxy was asked to reach, each once, in order. */
const hostsOf = (records: ProxyRecord[]) => [
  ...new Set(records.map((r) => (r.kind === 'connect' ? r.target : new URL(r.target).host).split(':')[0])),
];

/** The key, in any form a request carries it: bearer, Basic credentials of trace ingest, raw. */
function expectNoKeyIn(records: ProxyRecord[]): void {
  const basic = Buffer.from(`api:${emu.key}`).toString('base64');
  for (const record of records) {
    const seen = `${JSON.stringify(record.headers)}\n${record.sent.toString('latin1')}`;
    expect(seen).not.toContain(emu.key);
    expect(seen).not.toContain(basic);
  }
}

/** Every tunnel carried TLS (a handshake record first), and nothing went through the proxy otherwise. */
function expectOnlyTls(records: ProxyRecord[]): void {
  expect(records.length).toBeGreaterThan(0);
  for (const record of records) {
    expect(record.kind).toBe('connect');
    expect(record.sent[0]).toBe(0x16);
  }
}

describe('through HTTPS_PROXY, each interface', () => {
  it('the Training API (aip’s own client): models create, jobs get', async () => {
    const created = await aip(['models', 'create', '--name', 'proxied', '--base-model', BASE_MODEL, '-q'], {
      HTTPS_PROXY: proxy.url,
    });
    expect([created.code, created.stderr]).toEqual([0, '']);
    const got = await aip(['jobs', 'get', '00000000-0000-0000-0000-000000000000'], {
      HTTPS_PROXY: proxy.url,
    });
    expect(got.code).toBe(3);
    expect(hostsOf(proxy.records)).toEqual(['training.test']);
    expect(proxy.records[0]!.target).toBe(`training.test:${front.port}`);
    expectOnlyTls(proxy.records);
    expectNoKeyIn(proxy.records);
    expect(await emu.requests({ method: 'POST', path: '/training/v1/preview/models' })).not.toHaveLength(0);
  });

  it('the Inference API through the openai SDK (lower-case https_proxy): models list, chat streamed', async () => {
    const listed = await aip(['models', 'list', '--json'], { https_proxy: proxy.url });
    expect([listed.code, listed.stderr]).toEqual([0, '']);
    expect(JSON.parse(listed.stdout)).toContainEqual(expect.objectContaining({ id: INFERENCE_MODEL }));
    const chat = await aip(['chat', '--stream', '-m', INFERENCE_MODEL, 'Are you behind a proxy?'], {
      https_proxy: proxy.url,
    });
    expect([chat.code, chat.stderr]).toEqual([0, '']);
    expect(chat.stdout.trim()).not.toBe('');
    expect(hostsOf(proxy.records)).toEqual(['inference.test']);
    expectOnlyTls(proxy.records);
    expectNoKeyIn(proxy.records);
    expect(await emu.requests({ method: 'POST', path: '/inference/v1/chat/completions' })).not.toHaveLength(
      0,
    );
  });

  it('trace ingest: traces send', async () => {
    const sent = await aip(['traces', 'send', SPANS], { HTTPS_PROXY: proxy.url });
    expect(sent.code, sent.stderr).toBe(0);
    expect(hostsOf(proxy.records)).toEqual(['trace.test']);
    expectOnlyTls(proxy.records);
    expectNoKeyIn(proxy.records);
    expect(await emu.requests({ method: 'POST', path: '/trace/agents/otel/v1/traces' })).not.toHaveLength(0);
  });

  it('ALL_PROXY when the scheme has no variable of its own', async () => {
    const r = await aip(['models', 'list', '-q'], { ALL_PROXY: proxy.url });
    expect([r.code, r.stderr]).toEqual([0, '']);
    expect(hostsOf(proxy.records)).toEqual(['inference.test']);
  });
});

describe('NO_PROXY', () => {
  /** The doctor's proxy row and the hosts the proxy was asked for, with NO_PROXY set to `noProxy`. */
  async function doctorWith(noProxy: string, name = 'NO_PROXY') {
    proxy.records.length = 0;
    const r = await aip(['doctor', '--json'], { HTTPS_PROXY: proxy.url, [name]: noProxy });
    const rows = JSON.parse(r.stdout) as Array<{ check: string; status: string; detail: string }>;
    expect(rows.filter((row) => row.status === 'fail')).toEqual([]);
    return { row: rows.find((row) => row.check === 'proxy')!.detail, hosts: hostsOf(proxy.records).sort() };
  }
  const through = () => `http://127.0.0.1:${proxy.port} (HTTPS_PROXY)`;

  it('by exact host, by suffix, by host and port, and * for all; the rest still goes through', async () => {
    expect(await doctorWith('inference.test')).toEqual({
      row: `training, trace: ${through()}; inference: none (bypassed by NO_PROXY)`,
      hosts: ['trace.test', 'training.test'],
    });
    expect(await doctorWith('.test', 'no_proxy')).toEqual({
      row: 'training, inference, trace: none (bypassed by NO_PROXY)',
      hosts: [],
    });
    expect(await doctorWith('example.com, *.test')).toMatchObject({ hosts: [] });
    expect(await doctorWith(`trace.test:${front.port}`)).toEqual({
      row: `training, inference: ${through()}; trace: none (bypassed by NO_PROXY)`,
      hosts: ['inference.test', 'training.test'],
    });
    // Another port is another server: not excluded.
    expect(await doctorWith('trace.test:1')).toMatchObject({
      hosts: ['inference.test', 'trace.test', 'training.test'],
    });
    expect(await doctorWith('*')).toEqual({
      row: 'training, inference, trace: none (bypassed by NO_PROXY)',
      hosts: [],
    });
  });
});

describe('a proxy with credentials', () => {
  it('is sent them, and they are masked in doctor and --debug', async () => {
    const guarded = await startTestProxy({ credentials: `alice:${PASSWORD}` });
    extra.push(guarded);
    const withCredentials = `http://alice:${PASSWORD}@127.0.0.1:${guarded.port}`;
    const doctor = await aip(['doctor'], { HTTPS_PROXY: withCredentials });
    expect(doctor.code, doctor.stdout + doctor.stderr).toBe(0);
    expect(doctor.stdout).toMatch(
      new RegExp(
        `^proxy\tok\ttraining, inference, trace: http://alice:\\*\\*\\*\\*@127\\.0\\.0\\.1:${guarded.port} \\(HTTPS_PROXY\\)$`,
        'm',
      ),
    );
    const debug = await aip(['--debug', 'models', 'list', '-q'], { HTTPS_PROXY: withCredentials });
    expect(debug.code, debug.stderr).toBe(0);
    expect(debug.stderr).toMatch(
      new RegExp(
        `\\[1\\] \\* proxy: http://alice:\\*\\*\\*\\*@127\\.0\\.0\\.1:${guarded.port} \\(HTTPS_PROXY\\)`,
      ),
    );
    // Every exchange says how it went.
    const exchanges = debug.stderr.match(/^\[\d+\] > (GET|POST) /gm) ?? [];
    expect(exchanges.length).toBeGreaterThan(0);
    expect(debug.stderr.match(/^\[\d+\] \* proxy: /gm)).toHaveLength(exchanges.length);
    const basic = Buffer.from(`alice:${PASSWORD}`).toString('base64');
    for (const output of [doctor.stdout, doctor.stderr, debug.stdout, debug.stderr]) {
      expect(output).not.toContain(PASSWORD);
      expect(output).not.toContain(basic);
    }
    expect(guarded.records.every((r) => r.headers['proxy-authorization'] === `Basic ${basic}`)).toBe(true);
    expectNoKeyIn(guarded.records);
  });

  it('wrong ones: a 407 is one clear line naming the proxy (masked), exit 1, not retried', async () => {
    const guarded = await startTestProxy({ credentials: `alice:${PASSWORD}` });
    extra.push(guarded);
    const env = { HTTPS_PROXY: `http://alice:wrong-password@127.0.0.1:${guarded.port}` };
    for (const args of [
      ['jobs', 'get', '00000000-0000-0000-0000-000000000000'],
      ['models', 'list'],
    ]) {
      guarded.records.length = 0;
      const r = await aip(args, env);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(
        new RegExp(
          `^error: the proxy http://alice:\\*\\*\\*\\*@127\\.0\\.0\\.1:${guarded.port} \\(HTTPS_PROXY\\) answered 407 Proxy Authentication Required instead of connecting to (training|inference)\\.test:${front.port}; the proxy wants a user name and password: give them in HTTPS_PROXY, as user:password@ before its host\\n$`,
        ),
      );
      expect(r.stderr).not.toContain('wrong-password');
      expect(guarded.records).toHaveLength(1);
    }
  });
});

describe('a proxy that fails', () => {
  it('refusing (502): a clear error, exit 1', async () => {
    const refusing = await startTestProxy({ refuse: 502 });
    extra.push(refusing);
    const r = await aip(['models', 'create', '--name', 'refused', '--base-model', BASE_MODEL], {
      HTTPS_PROXY: refusing.url,
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /^error: the proxy http:\/\/127\.0\.0\.1:\d+ \(HTTPS_PROXY\) answered 502 Bad Gateway instead of connecting to training\.test:\d+; the proxy could not reach training\.test\n$/,
    );
    expect(refusing.records.map((record) => record.kind)).toEqual(['connect']);
  });

  it('not there: the error names the proxy, not the platform', async () => {
    const r = await aip(['--max-retries', '0', 'jobs', 'get', '00000000-0000-0000-0000-000000000000'], {
      HTTPS_PROXY: `http://127.0.0.1:${await closedPort()}`,
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /^error: training API unreachable: GET \/training\/v1\/preview\/training-jobs\/0+-0+-0+-0+-0+ could not connect to the proxy http:\/\/127\.0\.0\.1:\d+ \(HTTPS_PROXY\) \(ECONNREFUSED\)/,
    );
  });

  it('silent: --timeout ends the wait for the tunnel, and aip exits (its own client and the SDK)', async () => {
    const silent = await startTestProxy({ silent: true });
    extra.push(silent);
    const env = { HTTPS_PROXY: silent.url };
    // Long enough that even a busy machine has sent its CONNECT before it runs out (both are counted
    // below); the proxy never answers, so the wait is this long whatever the machine.
    const quick = ['--timeout', '2', '--max-retries', '0'];
    const own = await aip([...quick, 'jobs', 'get', '00000000-0000-0000-0000-000000000000'], env);
    expect([own.code, own.stderr]).toEqual([
      1,
      expect.stringMatching(/^error: training API unreachable: GET \S+ timed out after 2s/),
    ]);
    const sdk = await aip([...quick, 'models', 'list'], env);
    expect([sdk.code, sdk.stderr]).toEqual([
      1,
      expect.stringMatching(/^error: inference API unreachable: GET \S+ timed out after 2s/),
    ]);
    expect(silent.records.map((record) => record.kind)).toEqual(['connect', 'connect']);
  });

  it('a proxy variable that is not an http(s) URL: exit 2 before anything is sent; doctor fails it', async () => {
    const r = await aip(['models', 'list'], { HTTPS_PROXY: 'socks5://127.0.0.1:1080' });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /^error: HTTPS_PROXY names a socks5 proxy .*http:\/\/ and https:\/\/ proxies only/,
    );
    const doctor = await aip(['doctor', '--json'], { HTTPS_PROXY: 'socks5://127.0.0.1:1080' });
    expect(JSON.parse(doctor.stdout)).toContainEqual(
      expect.objectContaining({ check: 'proxy', status: 'fail' }),
    );
  });
});

describe('plain http through a proxy', () => {
  it('a key is never sent: refused in one line, exit 2, the proxy never asked', async () => {
    const r = await aip(['models', 'create', '--name', 'clear', '--base-model', BASE_MODEL], {
      ...platformEnv('http', Number(new URL(emu.origin).port)),
      HTTP_PROXY: proxy.url,
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      `error: refusing to send the API key over plain http to training.test:${new URL(emu.origin).port} through the proxy ${proxy.url} (HTTP_PROXY), which would read it: use an https:// URL\n`,
    );
    expect(proxy.records).toEqual([]);
  });

  it('without a key (health): the whole request goes to the proxy, absolute-form', async () => {
    const port = new URL(emu.origin).port;
    const r = await aip(['health', '--json'], {
      ...platformEnv('http', Number(port)),
      http_proxy: proxy.url,
    });
    expect(r.code, r.stderr).toBe(0);
    expect(proxy.records.map((record) => [record.kind, record.target])).toEqual(
      expect.arrayContaining([['absolute', `http://training.test:${port}/training/v1/health`]]),
    );
    expect(proxy.records.every((record) => record.headers.authorization === undefined)).toBe(true);
  });
});

describe('loopback targets', () => {
  it('never go through a proxy: the emulator works with a remote HTTP(S)_PROXY and no NO_PROXY', async () => {
    const env = {
      ...emu.env,
      AIP_CONFIG_DIR: tempConfigDir(),
      AIP_PROJECT: 'local/demo',
      HTTP_PROXY: 'http://proxy.corp.invalid:3128',
      HTTPS_PROXY: 'http://proxy.corp.invalid:3128',
    };
    const r = await runAip(
      ['--debug', 'models', 'create', '--name', 'local', '--base-model', BASE_MODEL, '-q'],
      {
        env,
        timeoutMs: 30_000,
      },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('* proxy: none (loopback: never proxied)');
  });
});

describe('start-up', () => {
  const LOADER = fileURLToPath(new URL('../helpers/log-loads.cjs', import.meta.url));
  /** The sources bundled in the dist/ files an aip run loaded (from their source maps). */
  async function loadedSources(args: string[], env: Record<string, string>): Promise<string[]> {
    const r = await runAip(args, {
      env: { ...env, NODE_OPTIONS: `${env.NODE_OPTIONS ?? ''} --require=${LOADER}` },
    });
    expect(r.code, r.stderr).toBe(0);
    return [...r.stderr.matchAll(/^aip-test-load (\S+\/dist\/\S+\.js)$/gm)].flatMap(
      (m) => (JSON.parse(readFileSync(`${m[1]}.map`, 'utf8')) as { sources: string[] }).sources,
    );
  }
  const PROXY_LIBRARIES =
    /node_modules\/(proxy-from-env|https?-proxy-agent|agent-base)\/|src\/api\/proxy-agents\.ts$/;

  it('loads no proxy library without a proxy variable, nor for a loopback target; the agent only when used', async () => {
    const local = { ...emu.env, AIP_CONFIG_DIR: tempConfigDir() };
    expect((await loadedSources(['health'], local)).filter((s) => PROXY_LIBRARIES.test(s))).toEqual([]);
    const remoteProxy = { ...local, HTTPS_PROXY: 'http://proxy.corp.invalid:3128' };
    expect((await loadedSources(['health'], remoteProxy)).filter((s) => PROXY_LIBRARIES.test(s))).toEqual([]);
    const proxied = await loadedSources(['health'], { ...platformEnv(), HTTPS_PROXY: proxy.url });
    expect(proxied.some((s) => /node_modules\/https-proxy-agent\//.test(s))).toBe(true);
  });
});
