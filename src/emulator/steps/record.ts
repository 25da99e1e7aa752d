// Every request but the control routes' goes into the request record as it came, and is completed
// (status, time) and logged when its answer is done, whatever step gives it: a fault, a refused key,
// a 404, the handler. The control routes are the tests' own way in, never recorded.

import { redactHeader } from '../../output/secrets.js';
import { describeBody } from '../recorder.js';
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
      body: describeBody(c.x.body, req.headers['content-type']),
      route: `${method} ${match.kind === 'found' ? match.route.pattern : path}`,
      status: null,
      fault: null,
      duration_ms: null,
    },
    c.x.body.length,
  );
  c.record = rec;
  res.once('close', () => {
    rec.status = res.headersSent ? res.statusCode : null;
    rec.duration_ms = Math.round((performance.now() - c.started) * 100) / 100;
    requests.finish(rec);
    emulator.log?.(
      `${rec.status ?? '---'} ${method} ${path}${rec.fault ? ` [fault: ${rec.fault}]` : ''} ${rec.duration_ms} ms`,
    );
  });
  return 'next';
}
