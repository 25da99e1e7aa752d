// Stoplight Prism, the independent oracle of the contract tests (test/contract/): started as a child
// process on an ephemeral port, either as a validating proxy (`--errors`) in front of the emulator or
// as a mock of the published document (static, or `--dynamic` with seeded answers). In front of it
// sits a small recording forwarder of our own, so that every exchange aip has with Prism is kept with
// what Prism said about it (the `sl-violations` header, or its own application/problem+json answer).
//
// aip is pointed at `${origin}/r/<run>/v1`: the forwarder strips `/r/<run>`, so each exchange belongs
// to the aip run that sent it, even when runs overlap. Against the dynamic mock the forwarder adds
// `Prefer: seed=<seed>-<run>-<n>` (n counting that run's requests), so any run can be replayed.

import { type ChildProcess, spawn } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { patience } from './patience.js';

const PRISM_BIN = fileURLToPath(
  new URL('../../node_modules/@stoplight/prism-cli/dist/index.js', import.meta.url),
);

/** One problem Prism found, as it reports them ({location, severity, code?, message}). */
export interface Violation {
  location: Array<string | number>;
  severity: string;
  code?: string | number;
  message: string;
}

export interface Exchange {
  /** The label of the aip run that sent it (the `/r/<run>` of its base URL). */
  run: string;
  /** Its order among the run's requests, from 1. */
  seq: number;
  method: string;
  /** As the document sees it: /v1/… */
  path: string;
  /** The query string, without the '?'. */
  query: string;
  /** The status aip got (Prism's own when it answered instead of the upstream). */
  status: number;
  /** The Prefer header the forwarder added (dynamic mock). */
  prefer?: string;
  /** Set when Prism answered itself: the part after '#' of its problem type, e.g. UNPROCESSABLE_ENTITY. */
  prismError?: string;
  requestViolations: Violation[];
  responseViolations: Violation[];
  /** The forwarder could not reach Prism (or the run had been stopped). */
  forwarderError?: string;
  ms: number;
}

export type PrismMode =
  | { mode: 'proxy'; upstream: string }
  | {
      mode: 'mock';
      dynamic: boolean /** the prefix of the per-request seeds (dynamic only) */;
      seed?: string;
    };

export interface PrismServer {
  /** The forwarder's origin. */
  origin: string;
  /** Prism's own origin, behind the forwarder. */
  prismOrigin: string;
  /** What aip's AIP_BASE_URL should be for a run of this label. */
  baseUrl(run: string): string;
  /** Every exchange so far, or a run's. */
  exchanges(run?: string): Exchange[];
  /** From now on, requests of this run are cut (a run given up on must not keep the oracle busy). */
  stopRun(run: string): void;
  /** The last of Prism's output (stdout and stderr), for failure messages. */
  output(): string;
  close(): Promise<void>;
}

const PROBLEM_PREFIX = 'https://stoplight.io/prism/errors#';
const ANSI = /\u001b\[[0-9;]*m/g;

function asViolations(value: unknown): Violation[] {
  if (!Array.isArray(value)) return [];
  return value.filter(
    (v): v is Violation =>
      typeof v === 'object' && v !== null && Array.isArray(v.location) && typeof v.message === 'string',
  );
}

/** Sorts what Prism said about one exchange into request and response violations. */
export function classify(
  header: string | undefined,
  contentType: string | undefined,
  body: string,
): Pick<Exchange, 'prismError' | 'requestViolations' | 'responseViolations'> {
  let reported: Violation[] = [];
  if (header) {
    try {
      reported = asViolations(JSON.parse(header));
    } catch {
      reported = [
        { location: ['sl-violations'], severity: 'Error', message: `unreadable header: ${header}` },
      ];
    }
  }
  const request = reported.filter((v) => v.location[0] !== 'response');
  const response = reported.filter((v) => v.location[0] === 'response');
  let prismError: string | undefined;
  if (contentType?.includes('application/problem+json')) {
    let problem: { type?: unknown; title?: unknown; detail?: unknown; validation?: unknown } = {};
    try {
      problem = JSON.parse(body);
    } catch {
      // Not Prism's answer after all.
    }
    if (typeof problem.type === 'string' && problem.type.startsWith(PROBLEM_PREFIX)) {
      prismError = problem.type.slice(PROBLEM_PREFIX.length);
      const seen = new Set(reported.map((v) => JSON.stringify(v)));
      const listed = asViolations(problem.validation).filter((v) => !seen.has(JSON.stringify(v)));
      for (const v of listed) {
        if (prismError === 'VIOLATIONS' && v.location[0] === 'response') response.push(v);
        else request.push(v);
      }
      // Prism refused the request without listing why (no such path, no key, …): that is about the request.
      if (prismError !== 'VIOLATIONS' && listed.length === 0 && request.length === 0) {
        request.push({
          location: ['request'],
          severity: 'Error',
          code: prismError,
          message: `${String(problem.title ?? prismError)}: ${String(problem.detail ?? '')}`,
        });
      }
    }
  }
  return { prismError, requestViolations: request, responseViolations: response };
}

function startForwarder(
  prismOrigin: string,
  seed: string | undefined,
): Promise<{
  server: http.Server;
  origin: string;
  exchanges: Exchange[];
  stopped: Set<string>;
  agent: http.Agent;
}> {
  const target = new URL(prismOrigin);
  // A connection per request: one kept open between requests could be closed by Prism at the moment
  // the next request went out on it (ECONNRESET, seen on a busy machine), which would be recorded as
  // Prism giving no answer.
  const agent = new http.Agent({ keepAlive: false, maxSockets: 32 });
  const exchanges: Exchange[] = [];
  const counts = new Map<string, number>();
  const stopped = new Set<string>();
  const server = http.createServer((req, res) => {
    const started = Date.now();
    const match = /^\/r\/([^/]+)(\/.*)$/.exec(req.url ?? '');
    if (!match) {
      res.writeHead(400, { 'content-type': 'text/plain' }).end('expected /r/<run>/…');
      return;
    }
    const run = decodeURIComponent(match[1]!);
    const rest = match[2]!;
    const q = rest.indexOf('?');
    const seq = (counts.get(run) ?? 0) + 1;
    counts.set(run, seq);
    const record: Exchange = {
      run,
      seq,
      method: req.method ?? 'GET',
      path: q === -1 ? rest : rest.slice(0, q),
      query: q === -1 ? '' : rest.slice(q + 1),
      status: 0,
      requestViolations: [],
      responseViolations: [],
      ms: 0,
    };
    if (stopped.has(run)) {
      record.forwarderError = 'the run had been stopped';
      exchanges.push(record);
      req.resume();
      res.destroy();
      return;
    }
    const headers: http.OutgoingHttpHeaders = { ...req.headers, host: target.host };
    if (seed !== undefined) {
      record.prefer = `seed=${seed}-${run}-${seq}`;
      headers.prefer = record.prefer;
    }
    const upstream = http.request(
      { host: target.hostname, port: target.port, method: req.method, path: rest, headers, agent },
      (answer) => {
        record.status = answer.statusCode ?? 0;
        res.writeHead(record.status, answer.headers);
        const chunks: Buffer[] = [];
        answer.on('data', (chunk: Buffer) => {
          chunks.push(chunk);
          res.write(chunk);
        });
        answer.on('end', () => {
          res.end();
          const header = answer.headers['sl-violations'];
          Object.assign(
            record,
            classify(
              Array.isArray(header) ? header.join(',') : header,
              answer.headers['content-type'],
              Buffer.concat(chunks).toString('utf8'),
            ),
          );
          record.ms = Date.now() - started;
          exchanges.push(record);
        });
        answer.on('error', (error) => {
          record.forwarderError = `answer cut: ${error.message}`;
          exchanges.push(record);
          res.destroy();
        });
      },
    );
    upstream.on('error', (error) => {
      record.forwarderError = `Prism unreachable: ${error.message}`;
      exchanges.push(record);
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
      res.end(`forwarder: ${error.message}`);
    });
    req.pipe(upstream);
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      resolve({ server, origin: `http://127.0.0.1:${port}`, exchanges, stopped, agent });
    });
  });
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 3000);
  await exited;
  clearTimeout(timer);
}

/** Starts Prism on an ephemeral port and a recording forwarder in front of it. */
export async function startPrism(
  document: string,
  mode: PrismMode,
  options: { startTimeoutMs?: number } = {},
): Promise<PrismServer> {
  const args =
    mode.mode === 'proxy'
      ? ['proxy', document, mode.upstream, '--errors']
      : ['mock', document, ...(mode.dynamic ? ['--dynamic'] : [])];
  const child = spawn(process.execPath, [PRISM_BIN, ...args, '--port', '0', '-h', '127.0.0.1'], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, FORCE_COLOR: '0', NO_COLOR: '1' },
  });
  // Prism logs every request: read all of it (a full pipe would stall it), keep the last 64 KB.
  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString('utf8').replace(ANSI, '')).slice(-65_536);
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);

  // Prism loads a few hundred modules before it listens: seconds on a quiet machine, and past 20 s on
  // a busy one (test/helpers/patience.ts).
  const timeoutMs = options.startTimeoutMs ?? patience(90_000);
  let prismOrigin: string;
  try {
    prismOrigin = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`Prism did not say it was listening within ${timeoutMs} ms`)),
        timeoutMs,
      );
      const look = () => {
        const found = /Prism is listening on (http:\/\/[\d.]+:\d+)/.exec(output);
        if (found) {
          clearTimeout(timer);
          child.stdout!.off('data', look);
          resolve(found[1]!);
        }
      };
      child.stdout!.on('data', look);
      child.once('error', (error) => {
        clearTimeout(timer);
        reject(error);
      });
      child.once('exit', (code, signal) => {
        clearTimeout(timer);
        reject(new Error(`Prism exited (${signal ?? code}) before listening`));
      });
    });
  } catch (error) {
    await stopChild(child);
    throw new Error(
      `prism ${args.join(' ')}: ${(error as Error).message}\n--- Prism's output ---\n${output.slice(-4000)}`,
    );
  }

  const seed = mode.mode === 'mock' && mode.dynamic ? (mode.seed ?? '0') : undefined;
  let forwarder: Awaited<ReturnType<typeof startForwarder>>;
  try {
    forwarder = await startForwarder(prismOrigin, seed);
  } catch (error) {
    await stopChild(child);
    throw error;
  }
  const { server, origin, exchanges, stopped, agent } = forwarder;
  return {
    origin,
    prismOrigin,
    baseUrl: (run) => `${origin}/r/${encodeURIComponent(run)}/v1`,
    exchanges: (run) => (run === undefined ? [...exchanges] : exchanges.filter((e) => e.run === run)),
    stopRun: (run) => {
      stopped.add(run);
    },
    output: () => output,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      agent.destroy();
      await stopChild(child);
    },
  };
}
