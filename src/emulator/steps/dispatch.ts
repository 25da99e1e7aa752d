// The route's handler, or the 404 / 405 FastAPI answers for a path it does not know or a method the
// path does not take (after the key: without one, every path of the APIs is a 401). A body that is not
// JSON where the handler wants JSON is FastAPI's 422.

import { InvalidJsonBody } from '../exchange.js';
import type { InFlight, Outcome } from './types.js';

export async function dispatch(c: InFlight): Promise<Outcome> {
  const { x, match } = c;
  if (match.kind === 'not-found') {
    x.error(404, 'Not Found');
    return 'handled';
  }
  if (match.kind === 'method-not-allowed') {
    x.error(405, 'Method Not Allowed', { allow: match.allowed.map((r) => r.method).join(', ') });
    return 'handled';
  }
  x.params = match.params;
  try {
    await match.route.handler.run(x);
  } catch (error) {
    if (!(error instanceof InvalidJsonBody)) throw error;
    x.invalid([{ type: 'json_invalid', loc: ['body'], msg: `JSON decode error: ${error.message}` }]);
  }
  return 'handled';
}
