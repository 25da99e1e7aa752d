// A real emulator on an ephemeral loopback port, and a client for its /_emulator/ control routes:
// the tests drive faults and read the request record over HTTP, as the benchmarks do, with the
// emulator's key (the control routes need one, as the platform's do). useEmulator() is the set-up of
// a test file that runs aip against one: the emulator, a fresh config directory per test, and run().

import http from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import type { RequestRecord } from '../../src/emulator/index.js';
import { type RunningEmulator, startEmulator } from '../../src/emulator/index.js';
import { type RunOptions, type RunResult, runCli, tempConfigDir } from './cli.js';

export const TEST_KEY = 'test-key-0123456789abcdef';

export interface TestEmulator extends RunningEmulator {
  key: string;
  /** AIP_* variables pointing the CLI at this emulator, with its key. */
  env: Record<string, string>;
  fault(spec: Record<string, unknown>): Promise<void>;
  requests(filter?: { method?: string; path?: string }): Promise<RequestRecord[]>;
  reset(): Promise<void>;
  control(method: string, path: string, body?: unknown): Promise<{ status: number; body: unknown }>;
  /**
   * A Training API request with the emulator's key: `path` under its base (/training/v1), a body as
   * JSON (a string as it is). The answer's body JSON-parsed (undefined when empty).
   */
  // biome-ignore lint/suspicious/noExplicitAny: answers of many shapes, read field by field by the tests
  api(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }>;
}

export interface EmulatorOptions {
  stepMs?: number;
  seed?: number;
  tokenMs?: number;
  unstreamedTokenMs?: number;
  trainingChatStream?: boolean;
}

/**
 * One request, on a connection of its own (agent: false: closed after its answer), the answer read
 * whole. Not fetch(): its pool keeps connections open between requests, and after a test that held
 * this worker's event loop past the emulator's keep-alive timeout (5 s: a synchronous test on a busy
 * machine), the next request went out on a connection the emulator was closing at that moment
 * (ECONNRESET), failing a test that had done nothing wrong.
 */
export function send(
  url: string,
  method: string,
  headers: Record<string, string>,
  body?: string,
): Promise<{ status: number; type: string | undefined; text: string }> {
  return new Promise((resolve, reject) => {
    // Its length given, as fetch() gives it: node:http frames no body of a DELETE or GET otherwise.
    const length = body === undefined ? {} : { 'content-length': String(Buffer.byteLength(body)) };
    const req = http.request(url, { method, headers: { ...headers, ...length }, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          type: res.headers['content-type'],
          text: Buffer.concat(chunks).toString('utf8'),
        }),
      );
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** Jobs step every 2 ms unless a test asks otherwise: fast, and still a schedule. */
export async function startTestEmulator(options: EmulatorOptions = {}): Promise<TestEmulator> {
  const emu = await startEmulator({
    port: 0,
    apiKeys: [TEST_KEY],
    stepMs: options.stepMs ?? 2,
    tokenMs: options.tokenMs ?? 0,
    unstreamedTokenMs: options.unstreamedTokenMs,
    seed: options.seed,
    trainingChatStream: options.trainingChatStream,
  });
  const control = async (method: string, path: string, body?: unknown) => {
    const res = await send(
      `${emu.origin}/_emulator${path}`,
      method,
      {
        authorization: `Bearer ${TEST_KEY}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body === undefined ? undefined : JSON.stringify(body),
    );
    return { status: res.status, body: JSON.parse(res.text) };
  };
  return {
    ...emu,
    key: TEST_KEY,
    env: {
      AIP_BASE_URL: emu.urls.base,
      AIP_INFERENCE_URL: emu.urls.inference,
      AIP_TRACE_URL: emu.urls.trace,
      AIP_API_KEY: TEST_KEY,
    },
    control,
    async api(method, path, body) {
      const res = await send(
        `${emu.urls.base}${path}`,
        method,
        { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
        body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
      );
      return { status: res.status, body: res.text ? JSON.parse(res.text) : undefined };
    },
    async fault(spec) {
      const res = await control('POST', '/faults', spec);
      if (res.status !== 201) throw new Error(`fault rejected: ${JSON.stringify(res.body)}`);
    },
    async requests(filter = {}) {
      const qs = new URLSearchParams(
        Object.entries(filter).filter(([, v]) => v !== undefined) as [string, string][],
      );
      const res = await control('GET', `/requests${qs.size ? `?${qs}` : ''}`);
      return (res.body as { data: RequestRecord[] }).data;
    },
    async reset() {
      await control('POST', '/reset');
    },
  };
}

export interface UseEmulatorOptions extends EmulatorOptions {
  /**
   * 'test' (the default): before each test the emulator is reset and env gets a new config directory.
   * 'file': both once, before the file's first test, for tests that build on one another's state.
   */
  fresh?: 'test' | 'file';
  /** AIP_PROJECT in env (default local/demo). */
  project?: string;
  /** What every run() starts from, e.g. { sleepCap: 5 } to poll at the emulator's pace. */
  runOptions?: RunOptions;
}

export interface EmulatorFixture {
  /** The emulator, started before the file's tests and closed after them: one object all along. */
  readonly emu: TestEmulator;
  /**
   * aip's environment against it: its URLs and key, AIP_CONFIG_DIR (a directory of its own, removed
   * after the file) and AIP_PROJECT. One object all along, refilled before each test.
   */
  readonly env: Record<string, string>;
  /** The config directory (env.AIP_CONFIG_DIR). */
  readonly dir: string;
  /**
   * runCli with env: a string is split into words (see words()); options.env is laid over env.
   */
  run(argv: string[] | string, options?: RunOptions): Promise<RunResult>;
}

/**
 * The set-up of a test file that runs aip against an emulator: registers the hooks that start, reset
 * and close it, and gives what the tests use. emu and env are objects that stay the same (filled in by
 * the hooks), so they can be taken apart at once:
 *   const { emu, env, run } = useEmulator();
 *   it('…', async () => { expect((await run('models list --json')).code).toBe(0); });
 */
export function useEmulator(options: UseEmulatorOptions = {}): EmulatorFixture {
  const { fresh = 'test', project = 'local/demo', runOptions = {}, ...emulatorOptions } = options;
  const emu = {} as TestEmulator;
  const env: Record<string, string> = {};
  let started = false;
  const refill = () => {
    for (const key of Object.keys(env)) delete env[key];
    const configDir = tempConfigDir();
    Object.assign(env, {
      ...emu.env,
      AIP_CONFIG_DIR: configDir,
      AIP_DATA_DIR: join(configDir, 'data'),
      AIP_PROJECT: project,
    });
  };
  beforeAll(async () => {
    Object.assign(emu, await startTestEmulator(emulatorOptions));
    started = true;
    if (fresh === 'file') refill();
  });
  afterAll(async () => {
    if (started) await emu.close();
  });
  if (fresh === 'test') {
    beforeEach(async () => {
      await emu.reset();
      refill();
    });
  }
  return {
    emu,
    env,
    get dir() {
      return env.AIP_CONFIG_DIR!;
    },
    run: (argv, runOpts = {}) => runCli(argv, { ...runOptions, ...runOpts, env: { ...env, ...runOpts.env } }),
  };
}
