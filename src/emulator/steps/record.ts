// Every request but the control routes' goes into the request record as it came, and is completed
// (status, time) and logged when its answer is done, whatever step gives it: a fault, a refused key,
// a 404, the handler. The control routes are the tests' own way in, never recorded.

import { redactHeader } from '../../output/secrets.js';
import { describeBody, keptIfSpace } from '../recorder.js';
import type { EmulatorParts, InFlight, Outcome } from './types.js';

export function record(c: InFlight, emulator: EmulatorParts): Outcome {
  if (c.api === 'control') return 'next';
  const { req, res, method, path, match } = c;
  const requests = emulator.state.requests;
  const rec = requests.add(
    {
      request_id: c.requestId,
      time: new Date().toISOString(),
      method,
      path,
      query: Object.fromEntries(c.query),
      headers: Object.fromEntries(
        Object.entries(req.headers).map(([k, v]) => [
          k,
          redactHeader(k, Array.isArray(v) ? v.join(', ') : (v ?? '')),
        ]),
      ),
      body: describeBody(c.x.received.length, req.headers['content-type'], () => c.x.body),
      route: `${method} ${match.kind === 'found' ? match.route.pattern : path}`,
      status: null,
      fault: null,
      duration_ms: null,
      usage: null,
    },
    c.x.received.length,
  );
  c.record = rec;
  // The record is held rather than committed on its own (recorder.ts): written with the request's
  // change, and at the latest as its answer starts, whichever step answers and however (a stream too).
  const writeHead = res.writeHead;
  res.writeHead = ((...args: Parameters<typeof res.writeHead>) => {
    keptIfSpace(() => emulator.state.persistence.flush());
    return writeHead.apply(res, args);
  }) as typeof res.writeHead;
  res.once('close', () => {
    rec.status = res.headersSent ? res.statusCode : null;
    rec.duration_ms = Math.round((performance.now() - c.started) * 100) / 100;
    const whole = !c.x.usageIfFinished || res.writableFinished;
    rec.usage = whole ? (c.x.usage ?? null) : null;
    requests.finish(rec);
    emulator.log?.(
      `${rec.status ?? '---'} ${method} ${path}${rec.fault ? ` [fault: ${rec.fault}]` : ''} ${rec.duration_ms} ms`,
    );
  });
  return 'next';
}
