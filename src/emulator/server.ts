// The emulator: one HTTP server on loopback serving the three interfaces under /training/v1,
// /inference/v1 and /trace, plus /_emulator/ for inspection and fault injection (product.md §6).
// What it does with each request, step by step, is pipeline.ts; here it is put together and started.

import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { EMULATOR_DEFAULT_KEY, EMULATOR_HOST, emulatorUrls } from '../settings/local-platform.js';
import { noPersistence, StorageFullError } from './durable/persistence.js';
import { openSqlitePersistence } from './durable/sqlite.js';
import { FaultStore } from './faults.js';
import { type OwnNames, ownNames } from './guard.js';
import { requestHandler } from './pipeline.js';
import type { RequestLog } from './recorder.js';
import { Router } from './router.js';
import { registerChatRoutes } from './routes/chat.js';
import { registerControlRoutes } from './routes/control.js';
import { registerInferenceRoutes } from './routes/inference.js';
import { registerJobRoutes } from './routes/jobs.js';
import { registerModelRoutes } from './routes/models.js';
import { registerTraceRoutes } from './routes/traces.js';
import { registerTrainingRoutes } from './routes/training.js';
import type { RouteDef } from './routes/types.js';
import { EmulatorState } from './state.js';

export interface EmulatorOptions {
  /** 0 picks a free port. */
  port?: number;
  host?: string;
  apiKeys?: readonly string[];
  /**
   * Keys that open the control routes (/_emulator/…) only, besides `apiKeys`: `aip emulator --detach`
   * gives its emulator one of its own, kept in the record that `status` and `stop` read.
   */
  controlKeys?: readonly string[];
  team?: string;
  /** Seeds job ids and metrics: the same seed gives the same jobs. Without it job ids are random. */
  seed?: number;
  /**
   * The state directory: everything the emulator is given is written there and read back on the next
   * start. Without it (the default of startEmulator, as tests and benchmarks use it) the state lives
   * in memory only, which `aip emulator --ephemeral` asks for.
   */
  stateDir?: string;
  /**
   * Which SQLite binding keeps the state directory: `node` (node:sqlite), `wasm` (node-sqlite3-wasm);
   * by default node:sqlite where this Node has it (lib/sqlite/choose-sqlite.ts). `aip emulator` takes it
   * from the hidden AIP_EMULATOR_SQLITE.
   */
  sqlite?: string;
  /** Time per training step of the emulated jobs. */
  stepMs?: number;
  /** Time between streamed chat tokens. */
  tokenMs?: number;
  /** Time per token of a chat reply sent whole, before it is sent (default 0). */
  unstreamedTokenMs?: number;
  /** Training API chat streams when asked (the published document says JSON only; off by default). */
  trainingChatStream?: boolean;
  /** One line per request (status, method, path, time). */
  log?: (line: string) => void;
}

export interface RunningEmulator {
  origin: string;
  port: number;
  urls: { base: string; inference: string; trace: string };
  apiKeys: readonly string[];
  state: EmulatorState;
  faults: FaultStore;
  requestLog: RequestLog;
  close(): Promise<void>;
}

export async function startEmulator(options: EmulatorOptions = {}): Promise<RunningEmulator> {
  const apiKeys = options.apiKeys?.length ? options.apiKeys : [EMULATOR_DEFAULT_KEY];
  // A state directory is opened first: refused (in use, damaged, not an emulator's) before anything listens.
  const persistence = options.stateDir
    ? openSqlitePersistence(options.stateDir, { sqlite: options.sqlite })
    : noPersistence;
  const state = new EmulatorState(apiKeys, {
    team: options.team,
    seed: options.seed,
    stepMs: options.stepMs,
    tokenMs: options.tokenMs,
    unstreamedTokenMs: options.unstreamedTokenMs,
    trainingChatStream: options.trainingChatStream,
    persistence,
  });
  // A full disk is logged once (its writes are answered 507 each, pipeline.ts), not per request.
  let toldFull = false;
  if (persistence.durable)
    persistence.onFull = (error) => {
      if (toldFull) return;
      toldFull = true;
      options.log?.(`${error.message}; until then writes are answered 507 and reads are served`);
    };
  const faults = new FaultStore();
  const requests = state.requests;
  const router = new Router<RouteDef>();
  registerTrainingRoutes(router);
  registerModelRoutes(router);
  registerJobRoutes(router);
  registerChatRoutes(router);
  registerInferenceRoutes(router);
  registerTraceRoutes(router);
  registerControlRoutes(router, faults, requests);

  const host = options.host ?? EMULATOR_HOST;
  let own: OwnNames | undefined;
  const handle = requestHandler({
    state,
    router,
    faults,
    controlKeys: new Set([...apiKeys, ...(options.controlKeys ?? [])]),
    // Known once it listens, which is before any request comes.
    own: () => (own ??= ownNames(host, (server.address() as AddressInfo).port)),
    log: options.log,
  });
  const server: Server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (error instanceof StorageFullError) {
        // Logged once already (persistence.onFull).
        if (!res.headersSent) {
          res.writeHead(507, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ detail: error.message }));
        } else res.destroy();
        return;
      }
      options.log?.(`500 ${req.method} ${req.url}: ${(error as Error).stack ?? error}`);
      if (!res.headersSent) {
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ detail: 'Internal Server Error' }));
      } else res.destroy();
    });
  });
  server.keepAliveTimeout = 5_000;

  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port ?? 0, host, () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (error) {
    // Not serving (the port is taken): the state directory is let go for another emulator.
    persistence.close();
    throw error;
  }
  const port = (server.address() as AddressInfo).port;
  const origin = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  return {
    origin,
    port,
    urls: emulatorUrls(origin),
    apiKeys,
    state,
    faults,
    requestLog: requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => {
          persistence.close();
          resolve();
        });
        server.closeAllConnections();
      }),
  };
}
