// The emulator's in-memory world: keys, the component switches of system-check, and one store per
// kind of thing (models and checkpoints so far).

import { EMULATOR_DEFAULT_TEAM } from './defaults.js';
import { ModelStore } from './store/models.js';

export const COMPONENTS = ['api', 'database', 'cpu_queue', 'gpu_queue'] as const;

export class EmulatorState {
  readonly startedAt = Date.now();
  /** key → team (entity) the key belongs to */
  readonly keys: ReadonlyMap<string, string>;
  /** component → error message, for components told to fail through /_emulator/system-check */
  failingComponents = new Map<string, string>();
  readonly models = new ModelStore();

  constructor(apiKeys: readonly string[], team: string = EMULATOR_DEFAULT_TEAM) {
    this.keys = new Map(apiKeys.map((key) => [key, team]));
  }

  teamForKey(key: string): string | undefined {
    return this.keys.get(key);
  }

  /** Back to a fresh start (keys stay): what POST /_emulator/reset does between tests. */
  reset(): void {
    this.failingComponents.clear();
    this.models.clear();
  }
}
