// A real emulator on an ephemeral loopback port, and a client for its /_emulator/ control routes:
// the tests drive faults and read the request record over HTTP, as the benchmarks do, with the
// emulator's key (the control routes need one, as the platform's do).

import type { RequestRecord } from '../../src/emulator/recorder.js';
import { type RunningEmulator, startEmulator } from '../../src/emulator/server.js';

export const TEST_KEY = 'test-key-0123456789abcdef';

export interface TestEmulator extends RunningEmulator {
  key: string;
  /** AIP_* variables pointing the CLI at this emulator, with its key. */
  env: Record<string, string>;
  fault(spec: Record<string, unknown>): Promise<void>;
  requests(filter?: { method?: string; path?: string }): Promise<RequestRecord[]>;
  reset(): Promise<void>;
  control(method: string, path: string, body?: unknown): Promise<{ status: number; body: unknown }>;
}

/** Jobs step every 2 ms unless a test asks otherwise: fast, and still a schedule. */
export async function startTestEmulator(
  options: { stepMs?: number; seed?: number; tokenMs?: number; trainingChatStream?: boolean } = {},
): Promise<TestEmulator> {
  const emu = await startEmulator({
    port: 0,
    apiKeys: [TEST_KEY],
    stepMs: options.stepMs ?? 2,
    tokenMs: options.tokenMs ?? 0,
    seed: options.seed,
    trainingChatStream: options.trainingChatStream,
  });
  const control = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${emu.origin}/_emulator${path}`, {
      method,
      headers: {
        authorization: `Bearer ${TEST_KEY}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: await res.json() };
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
