// `aip traces serve`'s server: an OTLP/HTTP receiver on loopback (POST /v1/traces, the path every
// OTLP exporter posts to), that routes each request's spans to a project (their own wandb.entity /
// wandb.project resource attributes first, then the exporter's project_id header, then aip's
// configured team/project), redacts them, and hands them to the forwarder, answering the exporter
// only once they are forwarded or spooled. Requests from a web page, or addressed to another name
// (DNS rebinding), are refused before the body is read, as the emulator refuses them.

import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type OwnNames, ownNames, refuseCrossSite, refuseMisdirected } from '../../lib/loopback-guard.js';
import { encodeRequest, type PbExportRequest } from '../otlp/otlp.js';
import { type Project, parseProject, resourceProject, withRouting } from '../otlp/routing.js';
import { answerFailure, answerSuccess } from './answer.js';
import type { GatewayCounters } from './counters.js';
import { BodyError, type BodyFormat, decodeBody, formatOf, inflate, spanCount } from './decode.js';
import type { Forwarder } from './forward.js';
import { type Routed, routeEncoded } from './wire-route.js';

export const OTLP_TRACES_PATH = '/v1/traces';
/** The most a request body may be as sent (compressed or not). */
export const MAX_BODY_BYTES = 64 * 1024 * 1024;

export interface ReceiverOptions {
  forwarder: Forwarder;
  /** The most the requests in slots may hold at once; MEMORY_BUDGET unless a test says otherwise. */
  memoryBudget?: number;
  counters: GatewayCounters;
  project: Project | undefined;
  redact?: (request: PbExportRequest) => { redacted: number; dropped: number };
  /** Told each request's spans, encoded, once they are taken. */
  onTaken?: (encoded: Uint8Array) => void;
}

/** Spans whose resource has no project to go to are taken out: the platform would drop them. */
function route(request: PbExportRequest, fallback: Project | undefined): number {
  let unrouted = 0;
  request.resourceSpans = request.resourceSpans.filter((rs) => {
    const project = resourceProject(rs.resource ?? {}) ?? fallback;
    if (project) {
      rs.resource = withRouting(rs.resource ?? {}, project);
      return true;
    }
    for (const ss of rs.scopeSpans ?? []) unrouted += ss.spans?.length ?? 0;
    return false;
  });
  return unrouted;
}

/**
 * The body, whole; a BodyError when it is too large (413: the rest is not read, and the connection
 * closes after the answer), when `hold` refuses a chunk (503: the gateway's memory budget is spent),
 * does not arrive whole within BODY_TIMEOUT_MS (408), or its client went away (the request is then
 * over: nothing is answered).
 */
function readBody(req: IncomingMessage, hold: (bytes: number) => boolean): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const timer = setTimeout(() => {
      req.pause();
      req.removeAllListeners('data');
      reject(new BodyError(408, `the request did not arrive whole within ${BODY_TIMEOUT_MS / 1000} s`));
    }, BODY_TIMEOUT_MS);
    const done = () => clearTimeout(timer);
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        done();
        req.pause();
        req.removeAllListeners('data');
        reject(new BodyError(413, `the request is larger than ${MAX_BODY_BYTES / 1024 / 1024} MB`));
        return;
      }
      if (!hold(chunk.length)) {
        done();
        req.pause();
        req.removeAllListeners('data');
        reject(new BodyError(503, 'the gateway holds as many requests as it may: try again later'));
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      done();
      resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size));
    });
    // A client gone before the end ('close' without 'end'; 'error' is not always emitted).
    req.on('close', () => {
      done();
      if (!req.complete) reject(new BodyError(400, 'the client went away before its request arrived whole'));
    });
  });
}

/**
 * Requests read and worked on at once; the others wait with their bodies unread (TCP holds them back),
 * so that memory stays flat whatever the load (bench/gateway.mjs).
 */
const SLOTS = 32;
/** The most a request's body may take to arrive, once it has a slot. */
const BODY_TIMEOUT_MS = 30_000;
/**
 * The most the requests in slots may hold at once, bodies as read and then as routed until taken:
 * 32 slots of 64 MB bodies would otherwise let one local client take gigabytes. Past it a request is
 * answered 503 with Retry-After (the exporter's to retry), so memory stays within this and one
 * request's inflating.
 */
export const MEMORY_BUDGET = 256 * 1024 * 1024;

export class Receiver {
  private server: Server;
  private own?: OwnNames;
  private busy = 0;
  private waiting: Array<() => void> = [];
  /** Bytes the requests in slots hold (see MEMORY_BUDGET). */
  private held = 0;
  private readonly memoryBudget: number;
  stopping = false;

  constructor(private readonly options: ReceiverOptions) {
    this.memoryBudget = options.memoryBudget ?? MEMORY_BUDGET;
    this.server = createServer((req, res) => void this.serve(req, res));
    // An exporter keeps its connection; a stop must not wait for it to go idle on its own.
    this.server.keepAliveTimeout = 5_000;
  }

  /**
   * One request: a slot, then its handling, the slot given back however it ends. A request whose
   * client went away while it waited for a slot gives it back at once (its stream would never end).
   */
  private async serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    await this.slot();
    try {
      if (req.destroyed || res.destroyed) return;
      // Stopping: no connection is kept for another request, and one answered is closed once idle
      // (an exporter that keeps exporting would otherwise hold the stop up, request after request).
      res.once('finish', () => {
        if (this.stopping) setImmediate(() => this.server.closeIdleConnections());
      });
      if (this.stopping) res.shouldKeepAlive = false;
      await this.handle(req, res);
    } catch (error) {
      if (!res.headersSent && !res.destroyed) answerFailure(res, 'json', 500, (error as Error).message);
      else res.destroy();
    } finally {
      this.release();
    }
  }

  listen(port: number, host = '127.0.0.1'): Promise<string> {
    return new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, host, () => {
        const address = this.server.address() as AddressInfo;
        this.own = ownNames(host, address.port, 'gateway');
        resolve(`http://${host}:${address.port}`);
      });
    });
  }

  /** Requests being read or worked on, those waiting for a slot, and the bytes they hold. */
  get load(): { busy: number; waiting: number; held: number } {
    return { busy: this.busy, waiting: this.waiting.length, held: this.held };
  }

  private slot(): Promise<void> {
    if (this.busy < SLOTS) {
      this.busy++;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  /** A slot freed goes to the oldest waiting request, if any. */
  private release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.busy--;
  }

  /** No new connections; resolves when those open have ended (idle ones are closed). */
  close(): Promise<void> {
    this.stopping = true;
    return new Promise((resolve) => {
      this.server.close(() => resolve());
      this.server.closeIdleConnections();
    });
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const own = this.own!;
    const refusal = refuseMisdirected(req, own) ?? refuseCrossSite(req, own);
    if (refusal) return answerFailure(res, 'json', refusal.status, refusal.message, refusal.headers);
    const path = (req.url ?? '').split('?')[0];
    if (path !== OTLP_TRACES_PATH)
      return answerFailure(
        res,
        'json',
        404,
        `Not Found: the gateway takes OTLP traces at POST ${OTLP_TRACES_PATH}`,
      );
    if (req.method !== 'POST')
      return answerFailure(res, 'json', 405, `Method Not Allowed: POST ${OTLP_TRACES_PATH}`, {
        allow: 'POST',
      });
    let format: BodyFormat = 'json';
    // What this request holds of the memory budget, given back however it ends.
    let held = 0;
    const hold = (bytes: number): boolean => {
      if (this.held + bytes > this.memoryBudget) return false;
      this.held += bytes;
      held += bytes;
      return true;
    };
    try {
      format = formatOf(req.headers['content-type']);
      if (Number(req.headers['content-length'] ?? 0) > MAX_BODY_BYTES)
        throw new BodyError(413, `the request is larger than ${MAX_BODY_BYTES / 1024 / 1024} MB`);
      const body = await readBody(req, hold);
      if (this.stopping) return this.unavailable(res, format, 'the gateway is stopping');
      const header = req.headers.project_id;
      const fallback = parseProject(Array.isArray(header) ? header[0] : header) ?? this.options.project;
      const plain = inflate(body, req.headers['content-encoding'] as string | undefined);
      const routed = this.prepare(plain, format, fallback);
      // The body as read is done with: what is held from here is the request as it will be sent.
      this.held -= held;
      held = 0;
      if (!hold(routed.encoded.byteLength))
        return this.unavailable(res, format, 'the gateway holds as many requests as it may');
      await this.take(routed, res, format);
    } catch (error) {
      if (!(error instanceof BodyError)) throw error;
      if (req.destroyed && !req.complete && error.status === 400) return; // gone: no one to answer
      // A body not read to its end leaves the connection unusable: it closes after the answer.
      const headers: Record<string, string> = {};
      if (error.status === 413 || error.status === 408 || error.status === 503) headers.connection = 'close';
      if (error.status === 503) headers['retry-after'] = '5';
      answerFailure(res, format, error.status, error.message, headers);
    } finally {
      this.held -= held;
    }
  }

  private unavailable(res: ServerResponse, format: BodyFormat, message: string): void {
    answerFailure(res, format, 503, `${message}: try again later`, { 'retry-after': '5' });
  }

  /**
   * The request routed (and redacted), encoded as it will be sent. Protobuf with nothing to redact is
   * routed as bytes (wire-route.ts); JSON, or anything to redact, is decoded whole.
   */
  private prepare(body: Buffer, format: BodyFormat, fallback: Project | undefined): Routed {
    if (format === 'protobuf' && !this.options.redact) {
      try {
        return routeEncoded(body, fallback);
      } catch (error) {
        throw new BodyError(
          400,
          `the body is not an OTLP protobuf ExportTraceServiceRequest: ${(error as Error).message}`,
        );
      }
    }
    const request = decodeBody(body, format);
    const received = spanCount(request);
    const unrouted = route(request, fallback);
    const redacted = this.options.redact?.(request);
    if (redacted) this.options.counters.redacted += redacted.redacted + redacted.dropped;
    return { encoded: encodeRequest(request), received, unrouted };
  }

  private async take(routed: Routed, res: ServerResponse, format: BodyFormat): Promise<void> {
    const { counters, forwarder } = this.options;
    const { encoded, received, unrouted } = routed;
    counters.requests++;
    counters.received += received;
    counters.dropped += unrouted;
    const why = unrouted
      ? 'no project: give the resource wandb.entity and wandb.project, or set the project (aip config set project TEAM/PROJECT)'
      : '';
    const spans = received - unrouted;
    if (spans === 0) return answerSuccess(res, format, unrouted, why);
    const outcome = await forwarder.submit(encoded, spans);
    if ('refused' in outcome) {
      if (outcome.refused === 503) return this.unavailable(res, format, outcome.message);
      return answerFailure(res, format, outcome.refused, outcome.message);
    }
    this.options.onTaken?.(encoded);
    const message = [why, outcome.message].filter(Boolean).join('; ');
    answerSuccess(res, format, unrouted + outcome.rejected, message);
  }
}
