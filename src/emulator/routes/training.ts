// Training API routes of the foundation: health and system-check, the two that need no key.

import { COMPONENTS } from '../state.js';
import type { EmulatorRouter } from './types.js';

/** Fixed, plausible check durations (ms), so that answers are stable. */
const CHECK_MS: Record<string, number> = { database: 0.8, cpu_queue: 1.2, gpu_queue: 2.4 };

export function registerTrainingRoutes(router: EmulatorRouter): void {
  router.add('GET', '/training/v1/health', {
    public: true,
    run: (x) => x.send(200, { status: 'ok' }),
  });

  // The published contract lists the components and "503 if any check fails"; api is a plain
  // boolean ("always true if reachable"), the others report success, duration and error.
  router.add('GET', '/training/v1/system-check', {
    public: true,
    run: (x) => {
      const failing = x.state.failingComponents;
      const body: Record<string, unknown> = {};
      for (const name of COMPONENTS) {
        const error = failing.get(name) ?? null;
        body[name] =
          name === 'api' ? error === null : { success: error === null, duration_ms: CHECK_MS[name], error };
      }
      x.send(failing.size > 0 ? 503 : 200, body);
    },
  });
}
