// The emulator's in-memory world: keys, the component switches of system-check, and one store per
// kind of thing (models with their checkpoints, training jobs).

import { EMULATOR_DEFAULT_TEAM } from './defaults.js';
import { JobStore } from './store/jobs.js';
import { ModelStore } from './store/models.js';
import { SpanStore } from './store/spans.js';

/** Time per training step unless `aip emulator --step-ms` says otherwise: slow enough to watch. */
export const DEFAULT_STEP_MS = 300;

/** Time between streamed tokens unless `aip emulator --token-ms` says otherwise: visible streaming. */
export const DEFAULT_TOKEN_MS = 20;

export const COMPONENTS = ['api', 'database', 'cpu_queue', 'gpu_queue'] as const;

export class EmulatorState {
  readonly startedAt = Date.now();
  /** key → team (entity) the key belongs to */
  readonly keys: ReadonlyMap<string, string>;
  /** component → error message, for components told to fail through /_emulator/system-check */
  failingComponents = new Map<string, string>();
  readonly models = new ModelStore();
  readonly jobs: JobStore;
  readonly spans = new SpanStore();
  /** Time between the tokens of a streamed chat reply. */
  tokenMs: number;
  /**
   * Whether Training API chat answers `stream: true` with server-sent events. Off by default: the
   * published document gives that operation a JSON answer only (routes/chat.ts).
   */
  readonly trainingChatStream: boolean;

  constructor(
    apiKeys: readonly string[],
    options: {
      team?: string;
      seed?: number;
      stepMs?: number;
      tokenMs?: number;
      trainingChatStream?: boolean;
    } = {},
  ) {
    this.tokenMs = options.tokenMs ?? DEFAULT_TOKEN_MS;
    this.trainingChatStream = options.trainingChatStream ?? false;
    this.keys = new Map(apiKeys.map((key) => [key, options.team ?? EMULATOR_DEFAULT_TEAM]));
    this.jobs = new JobStore(this.models, options.seed ?? 0, options.stepMs ?? DEFAULT_STEP_MS);
  }

  teamForKey(key: string): string | undefined {
    return this.keys.get(key);
  }

  /** Back to a fresh start (keys stay): what POST /_emulator/reset does between tests. */
  reset(): void {
    this.failingComponents.clear();
    this.models.clear();
    this.jobs.clear();
    this.spans.clear();
  }
}
