// The emulator: one HTTP server on loopback serving the three interfaces under /training/v1,
// /inference/v1 and /trace, plus /_emulator/ for inspection and fault injection (product.md §6).
//
// Each request: refuse it unless it is addressed to the emulator (Host) by no other site's web page
// (Origin, Sec-Fetch-Site; guard.ts) → read the body → record it → apply an injected fault, if one
// matches → route (404/405 as FastAPI answers) → check the bearer key (Training and Inference APIs,
// except the public health routes, and the control routes) → control routes: JSON only → the route's
// handler.

import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { redactHeader } from '../secrets.js';
import { EMULATOR_DEFAULT_KEY, EMULATOR_HOST, emulatorUrls } from './defaults.js';
import { noPersistence } from './durable/persistence.js';
import { openSqlitePersistence } from './durable/sqlite.js';
import { type Api, defaultMessage, Exchange, errorBody, InvalidJsonBody } from './exchange.js';
import { type Fault, FaultStore } from './faults.js';
import {
  bearerKey,
  type OwnNames,
  ownNames,
  type Refusal,
  refuseControlWithoutKey,
  refuseCrossSite,
  refuseMisdirected,
  refuseNonJson,
} from './guard.js';
import { describeBody, type RequestLog } from './recorder.js';
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
  /** Time per training step of the emulated jobs. */
  stepMs?: number;
  /** Time between streamed chat tokens. */
  tokenMs?: number;
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

const MAX_BODY_BYTES = 64 * 1024 * 1024;

function apiOf(path: string): Api | undefined {
  if (path.startsWith('/training/')) return 'training';
  if (path.startsWith('/inference/')) return 'inference';
  if (path.startsWith('/trace/')) return 'trace';
  if (path.startsWith('/_emulator/')) return 'control';
  return undefined;
}

class BodyTooLarge extends Error {}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new BodyTooLarge();
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

function sleep(ms: number, res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      res.off('close', done);
      resolve();
    }
    res.once('close', done);
  });
}

/** Lets the handler answer as usual but ends the connection after `limit` bytes of body. */
function cutAfter(res: ServerResponse, limit: number): void {
  let sent = 0;
  let cut = false;
  const write = res.write.bind(res) as (chunk: Buffer) => boolean;
  const end = res.end.bind(res) as (chunk?: Buffer) => ServerResponse;
  const toBuffer = (chunk: unknown) => (Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk)));
  res.write = ((chunk: unknown) => {
    if (cut) return true;
    const buf = toBuffer(chunk);
    if (sent + buf.length < limit) {
      sent += buf.length;
      return write(buf);
    }
    cut = true;
    const part = buf.subarray(0, limit - sent);
    sent = limit;
    if (part.length > 0) write(part);
    // end() on the socket flushes what was written, then closes: the client sees a short body.
    res.socket?.end();
    return true;
  }) as ServerResponse['write'];
  res.end = ((chunk?: unknown) => {
    if (chunk !== undefined && typeof chunk !== 'function') res.write(chunk as Buffer);
    if (!cut) return end();
    return res;
  }) as ServerResponse['end'];
}

/** A refusal in the interface's error shape, before the request is read: its body is left unread. */
function sendRefusal(res: ServerResponse, api: Api, requestId: string, refusal: Refusal): void {
  const payload = Buffer.from(JSON.stringify(errorBody(api, refusal.status, refusal.message)), 'utf8');
  res.writeHead(refusal.status, {
    'content-type': 'application/json',
    'content-length': String(payload.length),
    'x-request-id': requestId,
    ...refusal.headers,
  });
  res.end(payload);
}

export async function startEmulator(options: EmulatorOptions = {}): Promise<RunningEmulator> {
  const apiKeys = options.apiKeys?.length ? options.apiKeys : [EMULATOR_DEFAULT_KEY];
  // A state directory is opened first: refused (in use, damaged, not an emulator's) before anything listens.
  const persistence = options.stateDir ? openSqlitePersistence(options.stateDir) : noPersistence;
  const state = new EmulatorState(apiKeys, {
    team: options.team,
    seed: options.seed,
    stepMs: options.stepMs,
    tokenMs: options.tokenMs,
    trainingChatStream: options.trainingChatStream,
    persistence,
  });
  const controlKeys = new Set([...apiKeys, ...(options.controlKeys ?? [])]);
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
  let nextRequest = 1;
  const requestPrefix = randomBytes(3).toString('hex');

  async function applyFault(fault: Fault, x: Exchange): Promise<boolean> {
    if (fault.delay_ms) await sleep(fault.delay_ms, x.res);
    if (x.res.destroyed) return true;
    if (fault.drop) {
      x.req.socket.destroy();
      return true;
    }
    if (fault.status !== undefined) {
      const headers: Record<string, string> =
        fault.retry_after !== undefined ? { 'retry-after': fault.retry_after } : {};
      if (fault.raw_body !== undefined) {
        x.sendRaw(fault.status, fault.raw_body, fault.content_type ?? 'text/html', headers);
      } else if (fault.body !== undefined) {
        x.send(fault.status, fault.body, headers);
      } else if (fault.status === 422) {
        x.invalid([{ type: 'value_error', loc: ['body'], msg: 'injected validation error' }]);
      } else {
        x.send(fault.status, errorBody(x.api, fault.status, defaultMessage(fault.status)), headers);
      }
      return true;
    }
    if (fault.cut_after_bytes !== undefined) cutAfter(x.res, fault.cut_after_bytes);
    return false;
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const started = performance.now();
    const url = new URL(req.url ?? '/', 'http://emulator');
    const method = (req.method ?? 'GET').toUpperCase();
    const path = url.pathname;
    const api = apiOf(path);
    const requestId = `req_${requestPrefix}${(nextRequest++).toString(16).padStart(6, '0')}`;
    // Not for this emulator, or from another site's web page: refused before anything is done.
    own ??= ownNames(host, (server.address() as AddressInfo).port);
    const refused = refuseMisdirected(req, own) ?? refuseCrossSite(req, own);
    if (refused) {
      options.log?.(`${refused.status} ${method} ${path} [refused: ${refused.message}]`);
      sendRefusal(res, api ?? 'training', requestId, refused);
      return;
    }
    let body: Buffer;
    try {
      body = await readBody(req);
    } catch (error) {
      if (!(error instanceof BodyTooLarge)) throw error;
      res.writeHead(413, {
        'content-type': 'application/json',
        'x-request-id': requestId,
        connection: 'close',
      });
      res.end(JSON.stringify({ detail: 'Request body too large' }));
      return;
    }
    const x = new Exchange(
      req,
      res,
      api ?? 'training',
      method,
      path,
      url.searchParams,
      body,
      requestId,
      state,
    );

    // Jobs move on with time: bring them up to now before anyone looks (store/jobs.ts).
    state.jobs.advance(Date.now());
    // Routing first, so that a request is counted under its route's pattern whether or not a fault
    // then answers it.
    const match = router.match(method, path);
    if (api !== 'control') {
      const record = requests.add(
        {
          request_id: requestId,
          time: new Date().toISOString(),
          method,
          path,
          query: Object.fromEntries(url.searchParams),
          headers: Object.fromEntries(
            Object.entries(req.headers).map(([k, v]) => [
              k,
              redactHeader(k, Array.isArray(v) ? v.join(', ') : (v ?? '')),
            ]),
          ),
          body: describeBody(body, req.headers['content-type']),
          route: `${method} ${match.kind === 'found' ? match.route.pattern : path}`,
          status: null,
          fault: null,
          duration_ms: null,
        },
        body.length,
      );
      const rec = record;
      res.once('close', () => {
        rec.status = res.headersSent ? res.statusCode : null;
        rec.duration_ms = Math.round((performance.now() - started) * 100) / 100;
        requests.finish(rec);
        options.log?.(
          `${rec.status ?? '---'} ${method} ${path}${rec.fault ? ` [fault: ${rec.fault}]` : ''} ${rec.duration_ms} ms`,
        );
      });
      const fault = faults.take(method, path);
      if (fault) {
        rec.fault = fault.kind;
        if (await applyFault(fault, x)) return;
      }
    }

    const isPublic =
      (match.kind === 'found' && match.route.handler.public === true) ||
      (match.kind === 'method-not-allowed' && match.allowed.every((r) => r.handler.public === true));
    // The Training and Inference APIs check the key before anything else (as a gateway would), so that
    // a bad key is a 401 whatever the path; the trace ingest checks its own headers.
    if (!isPublic && (api === 'training' || api === 'inference')) {
      const key = bearerKey(req);
      x.team = key === undefined ? undefined : state.teamForKey(key);
      if (x.team === undefined) {
        x.error(401, key === undefined ? 'Not authenticated' : 'Authentication failed', {
          'www-authenticate': 'Bearer',
        });
        return;
      }
    }
    if (api === 'control') {
      const refusal = refuseControlWithoutKey(req, controlKeys) ?? refuseNonJson(req, body);
      if (refusal) return x.error(refusal.status, refusal.message, refusal.headers);
    }
    if (match.kind === 'not-found') return x.error(404, 'Not Found');
    if (match.kind === 'method-not-allowed') {
      return x.error(405, 'Method Not Allowed', { allow: match.allowed.map((r) => r.method).join(', ') });
    }
    x.params = match.params;
    try {
      await match.route.handler.run(x);
    } catch (error) {
      if (error instanceof InvalidJsonBody) {
        x.invalid([{ type: 'json_invalid', loc: ['body'], msg: `JSON decode error: ${error.message}` }]);
        return;
      }
      throw error;
    }
  }

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      options.log?.(`500 ${req.method} ${req.url}: ${(error as Error).stack ?? error}`);
      if (!res.headersSent) {
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ detail: 'Internal Server Error' }));
      } else res.destroy();
    });
  });
  server.keepAliveTimeout = 5_000;

  const host = options.host ?? EMULATOR_HOST;
  let own: OwnNames | undefined;
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
