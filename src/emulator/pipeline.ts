// The emulator's request path: a few small steps (steps/), each answering the request or passing it
// on. The order is the behaviour, so each step's place is said here:
//
//   refuseForeign      before anything: a request for another name or from another site's page is
//                      refused with its body unread, unrecorded, using up no fault (guard.ts)
//   readBody           the body, whole and capped (413 over the cap: unrecorded, unfaulted)
//   (begin)            the Exchange; jobs brought up to now (store/jobs.ts); the route looked up, not yet
//                      followed, so that the record counts the request under its route's pattern
//                      whether or not a fault then answers it
//   record             into the request record (not the control routes'), before a fault, so that the
//                      record shows the fault too, and whatever answers later completes it
//   injectFault        before the key: a fault stands for the network or the server failing, which
//                      happens whatever the request's key (and a fault is used up by a request that
//                      would have been a 401)
//   authenticate       the bearer key (Training and Inference APIs except their public routes; the
//                      control routes), before the path is looked at: a bad key is a 401 on any path
//   controlTakesJson   the control routes take JSON only, once the key is good
//   dispatch           404 / 405, or the route's handler (422 for a body that is not JSON)

import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { StorageFullError } from './durable/persistence.js';
import { type Api, Exchange } from './exchange.js';
import { authenticate } from './steps/authenticate.js';
import { controlTakesJson } from './steps/control-json.js';
import { dispatch } from './steps/dispatch.js';
import { injectFault } from './steps/fault.js';
import { type ReceivedBody, readBody } from './steps/read-body.js';
import { record } from './steps/record.js';
import { refuseForeign } from './steps/refuse-foreign.js';
import type { Arrival, EmulatorParts, InFlight, Step } from './steps/types.js';

/** The steps once the body is read, in order. */
const STEPS: readonly Step[] = [record, injectFault, authenticate, controlTakesJson, dispatch];

function apiOf(path: string): Api | undefined {
  if (path.startsWith('/training/')) return 'training';
  if (path.startsWith('/inference/')) return 'inference';
  if (path.startsWith('/trace/')) return 'trace';
  if (path.startsWith('/_emulator/')) return 'control';
  return undefined;
}

function arrive(req: IncomingMessage, res: ServerResponse, requestId: string): Arrival {
  const started = performance.now();
  const url = new URL(req.url ?? '/', 'http://emulator');
  const path = url.pathname;
  return {
    req,
    res,
    method: (req.method ?? 'GET').toUpperCase(),
    path,
    query: url.searchParams,
    api: apiOf(path),
    requestId,
    started,
  };
}

/** The request read: its Exchange, jobs brought up to now, its route looked up (not yet followed). */
function begin(a: Arrival, body: ReceivedBody, emulator: EmulatorParts): InFlight {
  const { req, res, method, path, query, requestId } = a;
  const x = new Exchange({
    req,
    res,
    api: a.api ?? 'training',
    method,
    path,
    query,
    received: body,
    requestId,
    state: emulator.state,
  });
  // Jobs move on with time: bring them up to now before anyone looks (store/jobs.ts). On a full disk
  // they stay as last written (the write's error is logged once): what is there is still served.
  try {
    emulator.state.jobs.advance(Date.now());
  } catch (error) {
    if (!(error instanceof StorageFullError)) throw error;
  }
  return { ...a, x, match: emulator.router.match(method, path) };
}

/**
 * The request handler of one emulator. A write refused for want of space is a 507 naming the cause, in
 * the API's error shape; other errors a step throws are the server's to answer (500).
 */
export function requestHandler(
  emulator: EmulatorParts,
): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  let nextRequest = 1;
  const requestPrefix = randomBytes(3).toString('hex');
  return async (req, res) => {
    const a = arrive(req, res, `req_${requestPrefix}${(nextRequest++).toString(16).padStart(6, '0')}`);
    if (refuseForeign(a, emulator) === 'handled') return;
    const body = await readBody(a);
    if (body === 'handled') return;
    const c = begin(a, body, emulator);
    for (const step of STEPS) {
      // Awaited only when a step is asynchronous (a fault's delay, the handler): a request goes from
      // its body to its handler in one turn, with nothing of another request's in between.
      let outcome: Awaited<ReturnType<Step>>;
      try {
        const running = step(c, emulator);
        outcome = running instanceof Promise ? await running : running;
      } catch (error) {
        if (!(error instanceof StorageFullError)) throw error;
        if (c.x.answered) res.destroy();
        else c.x.error(507, error.message);
        return;
      }
      if (outcome === 'handled') return;
    }
  };
}
