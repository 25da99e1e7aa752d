// An injected fault (faults.ts), when one matches: an answer in its place, a dropped connection, a
// stall, or an answer cut short. Only recorded requests meet faults (never the control routes'), and
// the record says which fault each one met.

import type { ServerResponse } from 'node:http';
import { waitForClient } from '../client-wait.js';
import { defaultMessage, type Exchange, errorBody } from '../exchange.js';
import type { Fault } from '../faults.js';
import type { EmulatorParts, InFlight, Outcome } from './types.js';

/**
 * Synchronous when no fault matches, so that a request without one goes on to its handler in the same
 * turn, as it always has.
 */
export function injectFault(c: InFlight, emulator: EmulatorParts): Outcome | Promise<Outcome> {
  if (c.record === undefined) return 'next';
  const fault = emulator.faults.take(c.method, c.path);
  if (!fault) return 'next';
  c.record.fault = fault.kind;
  return applyFault(fault, c.x).then((answered) => (answered ? 'handled' : 'next'));
}

/** Whether the fault answered the request (or ended it); false lets it go on (after a delay, or to be cut). */
async function applyFault(fault: Fault, x: Exchange): Promise<boolean> {
  if (fault.delay_ms) await waitForClient(fault.delay_ms, x.res);
  if (x.res.destroyed) return true;
  if (fault.stall_body_ms !== undefined) stallBody(x.res, fault.stall_body_ms);
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

/**
 * Lets the answer (the fault's or the handler's) go as usual, except that its head is sent at once and
 * its body `ms` later: a slow answer, or an event stream that opens and says nothing. A client gone
 * meanwhile is sent nothing more.
 */
function stallBody(res: ServerResponse, ms: number): void {
  const gate = waitForClient(ms, res);
  const writeHead = res.writeHead.bind(res) as (...args: unknown[]) => ServerResponse;
  const write = res.write.bind(res) as (chunk: unknown) => boolean;
  const end = res.end.bind(res) as (chunk?: unknown) => ServerResponse;
  let queue: Promise<unknown> = gate;
  const later = (send: () => void) => {
    queue = queue.then((open) => {
      if (open && !res.destroyed) send();
      return open;
    });
  };
  res.writeHead = ((...args: unknown[]) => {
    writeHead(...args);
    res.flushHeaders();
    return res;
  }) as ServerResponse['writeHead'];
  res.write = ((chunk: unknown) => {
    later(() => write(chunk));
    return true;
  }) as ServerResponse['write'];
  res.end = ((chunk?: unknown) => {
    later(() => (chunk === undefined || typeof chunk === 'function' ? end() : end(chunk)));
    return res;
  }) as ServerResponse['end'];
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
