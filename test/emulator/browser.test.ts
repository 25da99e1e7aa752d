// The emulator against the requests a web browser makes (product.md §6; the local attack surface): a
// page of another site may send "simple" requests without asking (text/plain, no custom header),
// preflight the rest, load URLs as images and scripts, and — through DNS rebinding, a name of its own
// made to resolve to 127.0.0.1 — make the emulator same-origin with itself. The emulator answers only
// requests addressed to it (Host: a loopback name with its own port) from no other site (Origin,
// Sec-Fetch-Site), and its control routes take JSON only and need a key. node:http sends exactly the
// headers a browser would (fetch would not let a test set Host).

import { readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { connect } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Transport } from '../../src/api/transport.js';
import { startEmulator } from '../../src/emulator/index.js';
import { EMULATOR_DEFAULT_KEY } from '../../src/settings/local-platform.js';
import { runCli, tempConfigDir } from '../helpers/cli.js';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { patience } from '../helpers/patience.js';
import { runAip } from '../helpers/spawn.js';

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator();
});
afterAll(() => emu.close());
beforeEach(() => emu.reset());

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
}

/** One request with exactly these headers (Host included: node:http lets it be set, or left out). */
function send(
  method: string,
  path: string,
  headers: Record<string, string> = {},
  body?: string,
  port = emu.port,
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method,
        path,
        agent: false,
        setHost: !Object.keys(headers).some((h) => h.toLowerCase() === 'host'),
        headers:
          body === undefined ? headers : { ...headers, 'content-length': String(Buffer.byteLength(body)) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let parsed: unknown = text;
          try {
            parsed = text ? JSON.parse(text) : undefined;
          } catch {}
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: parsed });
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const auth = () => ({ authorization: `Bearer ${emu.key}` });
const ATTACKER = 'https://attacker.example';
/** What a browser adds to a request from a page of another site. */
const crossSite = (mode: string) => ({
  origin: ATTACKER,
  'sec-fetch-site': 'cross-site',
  'sec-fetch-mode': mode,
  'sec-fetch-dest': 'empty',
  referer: `${ATTACKER}/page.html`,
  'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) Chrome/126.0 Safari/537.36',
});
const FAULT = JSON.stringify({ path: '/training/v1/health', status: 503, times: 1 });

async function installedFaults(): Promise<Array<{ path: string; remaining: number; applied: number }>> {
  const res = await send('GET', '/_emulator/faults', auth());
  expect(res.status).toBe(200);
  return (res.body as { data: Array<{ path: string; remaining: number; applied: number }> }).data;
}

/** No answer lets a page of another origin read it, or approves its preflight. */
function expectNoCors(res: Answer): void {
  expect(Object.keys(res.headers).filter((h) => h.startsWith('access-control-'))).toEqual([]);
}

describe('a page of another site', () => {
  it('cannot install a fault with a "simple" POST (text/plain, no preflight, no key)', async () => {
    const res = await send(
      'POST',
      '/_emulator/faults',
      { ...crossSite('no-cors'), 'content-type': 'text/plain;charset=UTF-8' },
      FAULT,
    );
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ detail: expect.stringContaining('Cross-origin request refused') });
    expectNoCors(res);
    expect(await installedFaults()).toEqual([]);
    expect((await send('GET', '/training/v1/health')).status).toBe(200);
  });

  it('gets its preflight for a JSON POST refused, and the POST itself too', async () => {
    const preflight = await send('OPTIONS', '/_emulator/faults', {
      ...crossSite('cors'),
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'content-type',
    });
    expect(preflight.status).toBe(403);
    expectNoCors(preflight);
    // A browser would stop here; one that did not would still be refused.
    const post = await send(
      'POST',
      '/_emulator/faults',
      { ...crossSite('cors'), 'content-type': 'application/json', ...auth() },
      FAULT,
    );
    expect(post.status).toBe(403);
    expectNoCors(post);
    expect(await installedFaults()).toEqual([]);
  });

  it('is refused on the platform routes too, in their shapes, even with a key', async () => {
    const training = await send('GET', '/training/v1/preview/base-models', {
      ...crossSite('cors'),
      ...auth(),
    });
    expect(training.status).toBe(403);
    expect(training.body).toEqual({ detail: expect.stringContaining('Origin https://attacker.example') });
    const inference = await send('GET', '/inference/v1/models', { ...crossSite('cors'), ...auth() });
    expect(inference.status).toBe(403);
    expect(inference.body).toEqual({
      error: { message: expect.stringContaining('Cross-origin'), type: 'permission_error', code: 403 },
    });
    expect(inference.headers['x-request-id']).toMatch(/^req_/);
    expectNoCors(inference);
  });

  it('cannot use up a fault with an <img> or <script> GET (no Origin, but Sec-Fetch-Site)', async () => {
    await emu.fault({ path: '/training/v1/health', status: 503, times: 1 });
    const image = await send('GET', '/training/v1/health', {
      'sec-fetch-site': 'cross-site',
      'sec-fetch-mode': 'no-cors',
      'sec-fetch-dest': 'image',
    });
    expect(image.status).toBe(403);
    expect(image.body).toEqual({ detail: expect.stringContaining('Sec-Fetch-Site cross-site') });
    // Another local server's page (same site, another port) is no better.
    const sameSite = await send('GET', '/training/v1/health', { 'sec-fetch-site': 'same-site' });
    expect(sameSite.status).toBe(403);
    expect(await installedFaults()).toMatchObject([
      { path: '/training/v1/health', remaining: 1, applied: 0 },
    ]);
    expect(await emu.requests()).toEqual([]);
  });

  it('with Origin null (a sandboxed frame, a file:// page) is foreign', async () => {
    const post = await send(
      'POST',
      '/_emulator/faults',
      { origin: 'null', 'sec-fetch-site': 'cross-site', 'content-type': 'text/plain' },
      FAULT,
    );
    expect(post.status).toBe(403);
    const get = await send('GET', '/training/v1/health', { origin: 'null' });
    expect(get.status).toBe(403);
    expect(await installedFaults()).toEqual([]);
  });

  it('of another local server (another port) is foreign; only the emulator itself is not', async () => {
    const other = `http://127.0.0.1:${emu.port === 65535 ? 65534 : emu.port + 1}`;
    expect((await send('GET', '/training/v1/health', { origin: other })).status).toBe(403);
    expect(
      (await send('GET', '/training/v1/health', { origin: `https://127.0.0.1:${emu.port}` })).status,
    ).toBe(403);
    // The emulator's own origins, as a page it served would send them: answered.
    for (const [host, origin] of [
      [`127.0.0.1:${emu.port}`, `http://127.0.0.1:${emu.port}`],
      [`localhost:${emu.port}`, `http://localhost:${emu.port}`],
      [`[::1]:${emu.port}`, `http://[::1]:${emu.port}`],
      [`LOCALHOST:${emu.port}`, `http://LocalHost:${emu.port}`],
    ]) {
      const res = await send(
        'POST',
        '/_emulator/faults',
        {
          host: host!,
          origin: origin!,
          'sec-fetch-site': 'same-origin',
          'content-type': 'application/json',
          ...auth(),
        },
        JSON.stringify({ path: '/training/v1/preview/base-models', status: 503 }),
      );
      expect(res.status, `${host} ${origin}`).toBe(201);
      expectNoCors(res);
    }
    // A typed-in URL (Sec-Fetch-Site: none) is the user's own doing: answered.
    const typed = await send('GET', '/training/v1/health', {
      'sec-fetch-site': 'none',
      'sec-fetch-mode': 'navigate',
    });
    expect(typed.status).toBe(200);
  });
});

describe('DNS rebinding: a request addressed to another name', () => {
  it('is refused (421) on the Training API, with a valid key, before a fault or the record sees it', async () => {
    await emu.fault({ path: '/training/v1/preview/base-models', status: 503, times: 1 });
    // What the attacker's page, now "same-origin" with attacker.example:PORT, sends: the default key is
    // public, so a key proves nothing here; the Host does.
    const res = await send('GET', '/training/v1/preview/base-models', {
      host: `attacker.example:${emu.port}`,
      'sec-fetch-site': 'same-origin',
      'sec-fetch-mode': 'cors',
      ...auth(),
    });
    expect(res.status).toBe(421);
    expect(res.body).toEqual({ detail: expect.stringContaining('Misdirected request: attacker.example') });
    expectNoCors(res);
    expect(await installedFaults()).toMatchObject([{ remaining: 1, applied: 0 }]);
    expect(await emu.requests()).toEqual([]);
  });

  it('is refused on the Inference API (OpenAI shape) and on the control routes', async () => {
    const inference = await send('GET', '/inference/v1/models', {
      host: `rebind.attacker.example:${emu.port}`,
      ...auth(),
    });
    expect(inference.status).toBe(421);
    expect(inference.body).toMatchObject({
      error: { code: 421, message: expect.stringContaining('Misdirected') },
    });
    const control = await send('GET', '/_emulator/requests', {
      host: `attacker.example:${emu.port}`,
      ...auth(),
    });
    expect(control.status).toBe(421);
    const post = await send(
      'POST',
      '/_emulator/faults',
      {
        host: `attacker.example:${emu.port}`,
        origin: `http://attacker.example:${emu.port}`,
        'content-type': 'application/json',
        ...auth(),
      },
      FAULT,
    );
    expect(post.status).toBe(421);
    expect(await installedFaults()).toEqual([]);
  });

  it('is refused with the wrong port, without a port, or as another loopback-looking name', async () => {
    for (const host of [
      `127.0.0.1:${emu.port === 65535 ? 65534 : emu.port + 1}`,
      `localhost:80`,
      'localhost',
      '127.0.0.1',
      `localhost.:${emu.port}`,
      `evil.localhost:${emu.port}`,
      `127.0.0.1.nip.io:${emu.port}`,
      `0.0.0.0:${emu.port}`,
    ]) {
      const res = await send('GET', '/training/v1/health', { host });
      expect(res.status, host).toBe(421);
    }
    // An absolute request-target names the host too (RFC 9112 §3.2.2).
    const absolute = await send('GET', `http://attacker.example:${emu.port}/training/v1/health`, {
      host: `127.0.0.1:${emu.port}`,
    });
    expect(absolute.status).toBe(421);
  });

  it('without any Host (HTTP/1.0) is refused too: only a local client can leave it out', async () => {
    const raw = await new Promise<string>((resolve, reject) => {
      const socket = connect(emu.port, '127.0.0.1', () => {
        socket.end('GET /training/v1/health HTTP/1.0\r\n\r\n');
      });
      let text = '';
      socket.on('data', (d) => {
        text += d;
      });
      socket.on('end', () => resolve(text));
      socket.on('error', reject);
    });
    expect(raw).toMatch(/^HTTP\/1\.1 400 /);
    expect(raw).toContain('A Host header is required');
  });
});

describe('clients on this machine (no Origin)', () => {
  it('are answered: aip, the SDKs and curl send no Origin and name the emulator in Host', async () => {
    for (const host of [`127.0.0.1:${emu.port}`, `localhost:${emu.port}`, `[::1]:${emu.port}`]) {
      const res = await send('GET', '/inference/v1/models', { host, ...auth() });
      expect(res.status, host).toBe(200);
      expectNoCors(res);
    }
    const viaFetch = await fetch(`${emu.origin}/training/v1/preview/base-models`, { headers: auth() });
    expect(viaFetch.status).toBe(200);
    // …but a browser's tab cannot pass for one by leaving out Origin.
    expect(
      (await send('GET', '/inference/v1/models', { 'sec-fetch-site': 'cross-site', ...auth() })).status,
    ).toBe(403);
  });
});

describe('the control routes', () => {
  const GETS = ['health', 'requests', 'faults', 'counts', 'state', 'logs', 'spans', 'system-check'];

  it('need a key the emulator was started with (401 otherwise), GET routes included', async () => {
    for (const route of GETS) {
      const none = await send('GET', `/_emulator/${route}`);
      expect(none.status, route).toBe(401);
      expect(none.body, route).toEqual({ detail: 'Not authenticated' });
      expect(none.headers['www-authenticate']).toBe('Bearer');
      const wrong = await send('GET', `/_emulator/${route}`, { authorization: 'Bearer not-the-key' });
      expect(wrong.status, route).toBe(401);
      expect((await send('GET', `/_emulator/${route}`, auth())).status, route).toBe(200);
    }
    const post = await send('POST', '/_emulator/faults', { 'content-type': 'application/json' }, FAULT);
    expect(post.status).toBe(401);
    expect((await send('POST', '/_emulator/reset')).status).toBe(401);
    expect(
      (await send('DELETE', '/_emulator/requests', { authorization: 'Basic YXBpOnRlc3Q=' })).status,
    ).toBe(401);
    expect(await installedFaults()).toEqual([]);
    expect(
      (await send('POST', '/_emulator/faults', { ...auth(), 'content-type': 'application/json' }, FAULT))
        .status,
    ).toBe(201);
  });

  it('take JSON only (415 for a "simple" type), even with the key', async () => {
    for (const type of [
      'text/plain',
      'text/plain;charset=UTF-8',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
    ]) {
      const res = await send('POST', '/_emulator/faults', { ...auth(), 'content-type': type }, FAULT);
      expect(res.status, type).toBe(415);
      expect(res.body).toEqual({ detail: expect.stringContaining('application/json') });
    }
    expect((await send('POST', '/_emulator/faults', auth(), FAULT)).status).toBe(415);
    expect((await send('POST', '/_emulator/reset', { ...auth(), 'content-type': 'text/plain' })).status).toBe(
      415,
    );
    expect(await installedFaults()).toEqual([]);
    const json = await send(
      'POST',
      '/_emulator/faults',
      { ...auth(), 'content-type': 'application/json; charset=utf-8' },
      FAULT,
    );
    expect(json.status).toBe(201);
    expect((await send('POST', '/_emulator/reset', auth())).status).toBe(200);
  });

  it('take any of the keys the emulator was started with, and not another', async () => {
    const two = await startEmulator({
      port: 0,
      apiKeys: ['first-key-000000', 'second-key-00000'],
      controlKeys: ['ctl-key-0000000'],
    });
    try {
      const health = (key: string) =>
        send('GET', '/_emulator/health', { authorization: `Bearer ${key}` }, undefined, two.port);
      for (const key of ['first-key-000000', 'second-key-00000', 'ctl-key-0000000'])
        expect((await health(key)).status, key).toBe(200);
      expect((await health(EMULATOR_DEFAULT_KEY)).status).toBe(401);
      // A control key opens the control routes only.
      const models = await send(
        'GET',
        '/inference/v1/models',
        { authorization: 'Bearer ctl-key-0000000' },
        undefined,
        two.port,
      );
      expect(models.status).toBe(401);
    } finally {
      await two.close();
    }
  });
});

describe('aip emulator --detach, status and stop', () => {
  it('use a control key of their own, kept in the record (0600), never the user key', {
    timeout: patience(90_000),
  }, async () => {
    const dir = tempConfigDir();
    const userKey = 'users-own-key-0123456789';
    const env = { AIP_CONFIG_DIR: dir };
    const started = await runAip(
      ['emulator', '--detach', '--port', '0', '--ephemeral', '--api-key', userKey, '--json'],
      {
        env,
      },
    );
    expect(started.code, started.stderr).toBe(0);
    const shown = JSON.parse(started.stdout) as { pid: number; origin: string; port: number };
    try {
      const recordText = readFileSync(join(dir, 'emulator.json'), 'utf8');
      const record = JSON.parse(recordText) as { control_key?: string };
      expect(record.control_key).toMatch(/^aip-emulator-control-[\w-]{32}$/);
      expect(recordText).not.toContain(userKey);
      expect(started.stdout).not.toContain(record.control_key);
      expect(shown).not.toHaveProperty('control_key');
      const health = (key?: string) =>
        send(
          'GET',
          '/_emulator/health',
          key ? { authorization: `Bearer ${key}` } : {},
          undefined,
          shown.port,
        );
      expect((await health()).status).toBe(401);
      expect((await health(record.control_key)).status).toBe(200);
      expect((await health(userKey)).status).toBe(200);
      const status = await runAip(['emulator', 'status', '--json'], { env });
      expect(status.code, status.stderr).toBe(0);
      expect(JSON.parse(status.stdout)).toMatchObject({ pid: shown.pid, detached: true });
      expect(status.stdout).not.toContain(record.control_key);
    } finally {
      const stop = await runAip(['emulator', 'stop'], { env });
      expect(stop).toMatchObject({
        code: 0,
        stderr: `Stopped the emulator at ${shown.origin} (pid ${shown.pid})\n`,
      });
    }
  });

  it('status reports the emulator it finds on the port of a stale record, without its state when it refuses the key', async () => {
    // The record's pid (1) is no emulator; the one on its port takes keys of its own and says its pid.
    const dir = tempConfigDir();
    const record = { pid: 1, port: emu.port, origin: emu.origin, log_file: '/dev/null', started_at: '' };
    writeFileSync(join(dir, 'emulator.json'), JSON.stringify(record), { mode: 0o600 });
    const status = await runAip(['emulator', 'status'], { env: { AIP_CONFIG_DIR: dir } });
    expect(status).toMatchObject({
      code: 0,
      stdout: `url\t${emu.origin}\npid\t${process.pid} (foreground)\nstate\tnot shown: it takes keys of its own (--api-key), not the default one\n`,
      stderr: '',
    });
  });
});

describe('aip emulator status without a record', () => {
  it('asks the default port with the default key only, never the user key, and says when it is refused', async () => {
    const sent: Array<{ url: string; authorization: string | undefined }> = [];
    const refusing: Transport = async (req) => {
      sent.push({ url: req.url, authorization: req.headers.authorization });
      return {
        status: 401,
        statusText: 'Unauthorized',
        headers: { 'content-type': 'application/json' },
        body: Buffer.from('{"detail":"Authentication failed"}'),
        elapsedMs: 1,
      };
    };
    const r = await runCli(['emulator', 'status'], {
      env: { AIP_API_KEY: 'users-own-key-0123456789', WANDB_API_KEY: 'w'.repeat(40) },
      transport: refusing,
    });
    expect(sent).toEqual([
      { url: 'http://127.0.0.1:4010/_emulator/health', authorization: `Bearer ${EMULATOR_DEFAULT_KEY}` },
    ]);
    expect(r).toMatchObject({
      code: 1,
      stderr:
        'error: something at http://127.0.0.1:4010 refuses the default emulator key: an emulator started in the foreground with its own --api-key? (status finds detached emulators, and others that accept the default key)\n',
    });
  });
});
