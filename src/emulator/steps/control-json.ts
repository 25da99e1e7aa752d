// The control routes take JSON only (415 otherwise; guard.ts says why), once their key is known to be
// good: a request without the key is a 401 whatever its type.

import { refuseNonJson } from '../guard.js';
import type { InFlight, Outcome } from './types.js';

export function controlTakesJson(c: InFlight): Outcome {
  if (c.api !== 'control') return 'next';
  const refusal = refuseNonJson(c.req, c.x.body);
  if (!refusal) return 'next';
  c.x.error(refusal.status, refusal.message, refusal.headers);
  return 'handled';
}
