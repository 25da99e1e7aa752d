// /_emulator/…: inspection and fault injection for tests and benchmarks. Not part of the platform
// contract; no key needed, never recorded, never faulted.

import { FaultSpecError, type FaultStore } from '../faults.js';
import type { RequestLog } from '../recorder.js';
import { COMPONENTS } from '../state.js';
import type { EmulatorRouter } from './types.js';

export function registerControlRoutes(router: EmulatorRouter, faults: FaultStore, log: RequestLog): void {
  router.add('GET', '/_emulator/health', {
    run: (x) =>
      x.send(200, {
        ok: true,
        pid: process.pid,
        uptime_s: Math.round((Date.now() - x.state.startedAt) / 1000),
        requests: log.total,
      }),
  });

  router.add('GET', '/_emulator/requests', {
    run: (x) => {
      const filter = { method: x.query.get('method') ?? undefined, path: x.query.get('path') ?? undefined };
      x.send(200, { data: log.list(filter), dropped: log.dropped });
    },
  });
  router.add('DELETE', '/_emulator/requests', {
    run: (x) => {
      log.clear();
      x.send(200, { cleared: true });
    },
  });
  router.add('GET', '/_emulator/counts', { run: (x) => x.send(200, log.routeCounts()) });

  router.add('POST', '/_emulator/faults', {
    run: (x) => {
      try {
        x.send(201, faults.add(x.json()));
      } catch (error) {
        if (!(error instanceof FaultSpecError)) throw error;
        x.invalid([{ type: 'value_error', loc: ['body'], msg: error.message }]);
      }
    },
  });
  router.add('GET', '/_emulator/faults', { run: (x) => x.send(200, { data: faults.list() }) });
  router.add('DELETE', '/_emulator/faults', {
    run: (x) => {
      faults.clear();
      x.send(200, { cleared: true });
    },
  });
  router.add('DELETE', '/_emulator/faults/:id', {
    run: (x) =>
      faults.remove(x.params.id!) ? x.send(200, { deleted: x.params.id }) : x.error(404, 'no such fault'),
  });

  router.add('GET', '/_emulator/system-check', {
    run: (x) => x.send(200, { failing: Object.fromEntries(x.state.failingComponents) }),
  });
  // {"failing": {"database": "connection refused"}} makes system-check answer 503; {} heals all.
  router.add('PUT', '/_emulator/system-check', {
    run: (x) => {
      const body = x.json() as { failing?: unknown };
      const failing = body?.failing ?? {};
      const entries = typeof failing === 'object' && failing !== null ? Object.entries(failing) : [];
      const unknown = entries.filter(([name]) => !(COMPONENTS as readonly string[]).includes(name));
      if (unknown.length > 0 || typeof failing !== 'object') {
        x.invalid([
          { type: 'value_error', loc: ['body', 'failing'], msg: `components are ${COMPONENTS.join(', ')}` },
        ]);
        return;
      }
      x.state.failingComponents = new Map(entries.map(([name, message]) => [name, String(message)]));
      x.send(200, { failing: Object.fromEntries(x.state.failingComponents) });
    },
  });

  router.add('POST', '/_emulator/reset', {
    run: (x) => {
      x.state.reset();
      faults.clear();
      log.clear();
      x.send(200, { reset: true });
    },
  });
}
