// The emulator's world: keys, the component switches of system-check, and one store per kind of
// thing (models with their checkpoints, training jobs, spans, the request record), each kept in memory
// and written through to the state directory when there is one.

import { EMULATOR_DEFAULT_TEAM } from '../settings/local-platform.js';
import { noPersistence, type Persistence } from './durable/persistence.js';
import { RequestLog } from './recorder.js';
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
  readonly models: ModelStore;
  readonly jobs: JobStore;
  readonly spans: SpanStore;
  /** The request record (kept beside the rest, so that it too survives a restart). */
  readonly requests: RequestLog;
  /** Time between the tokens of a streamed chat reply. */
  tokenMs: number;
  /**
   * Time per token of a chat reply sent whole, before it is sent: 0 (at once) unless a benchmark asks
   * for replies whose latency grows with their length, as a model server's does.
   */
  unstreamedTokenMs: number;
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
      unstreamedTokenMs?: number;
      trainingChatStream?: boolean;
      /** Where the state is written through to (durable/); in memory only when not given. */
      persistence?: Persistence;
    } = {},
  ) {
    this.tokenMs = options.tokenMs ?? DEFAULT_TOKEN_MS;
    this.unstreamedTokenMs = options.unstreamedTokenMs ?? 0;
    this.trainingChatStream = options.trainingChatStream ?? false;
    this.keys = new Map(apiKeys.map((key) => [key, options.team ?? EMULATOR_DEFAULT_TEAM]));
    this.persistence = options.persistence ?? noPersistence;
    this.models = new ModelStore(this.persistence);
    this.jobs = new JobStore(this.models, options.seed, options.stepMs ?? DEFAULT_STEP_MS, this.persistence);
    this.spans = new SpanStore(this.persistence);
    this.requests = new RequestLog(undefined, this.persistence);
  }

  readonly persistence: Persistence;

  /** How much the emulator holds, for `aip emulator status`. */
  counts(): Record<string, number> {
    const counts: Record<string, number> = {
      models: this.models.models.size,
      jobs: this.jobs.size,
      logs: this.models.logs.length,
      spans: this.spans.stored(),
      requests: this.requests.size,
    };
    // Counted only when read: over 100,000 jobs each is a walk of SQLite's, which the start-up line
    // (models, jobs, spans) has no use for; `emulator status` reads them all.
    Object.defineProperties(counts, {
      checkpoints: { enumerable: true, get: () => this.models.checkpointCount() },
      events: { enumerable: true, get: () => this.jobs.eventCount() },
    });
    return counts;
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
