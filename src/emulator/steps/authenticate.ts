// The bearer key. The Training and Inference APIs check it before looking at the path (as a gateway
// would), so that a bad key is a 401 whatever the path, except on their public routes (health,
// system-check); the key's team is what the handlers then act for. The control routes need a key the
// emulator was started with, or its control key. The trace ingest checks its own headers (routes/traces.ts).

import { bearerKey, refuseControlWithoutKey } from '../guard.js';
import type { Match } from '../router.js';
import type { RouteDef } from '../routes/types.js';
import type { EmulatorParts, InFlight, Outcome } from './types.js';

/** On a refused control request: the emulator's pid (src/commands/emulator/daemon.ts reads it). */
const EMULATOR_HEADER = 'x-aip-emulator-pid';

/** A route served without a key; a path known only under other methods, if all of them are. */
function isPublic(match: Match<RouteDef>): boolean {
  return (
    (match.kind === 'found' && match.route.handler.public === true) ||
    (match.kind === 'method-not-allowed' && match.allowed.every((r) => r.handler.public === true))
  );
}

export function authenticate(c: InFlight, emulator: EmulatorParts): Outcome {
  const { x } = c;
  if (c.api === 'training' || c.api === 'inference') {
    if (isPublic(c.match)) return 'next';
    const key = bearerKey(c.req);
    x.team = key === undefined ? undefined : emulator.state.teamForKey(key);
    if (x.team !== undefined) return 'next';
    x.error(401, key === undefined ? 'Not authenticated' : 'Authentication failed', {
      'www-authenticate': 'Bearer',
    });
    return 'handled';
  }
  if (c.api === 'control') {
    const refusal = refuseControlWithoutKey(c.req, emulator.controlKeys);
    if (refusal) {
      // Says what refused, and its pid (which `ps` shows anyone), so that `aip emulator status` finds an
      // emulator started with keys of its own; nothing of its state goes without a key.
      x.error(refusal.status, refusal.message, {
        ...refusal.headers,
        [EMULATOR_HEADER]: String(process.pid),
      });
      return 'handled';
    }
  }
  return 'next';
}
