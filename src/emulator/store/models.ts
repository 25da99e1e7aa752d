// The emulator's trainable models, their checkpoints and the trajectories logged to them. Kept in
// memory, and every change written through to the state directory (durable/) before it is answered.

import { randomBytes, randomUUID } from 'node:crypto';
import { noPersistence, type Persistence, seqId } from '../durable/persistence.js';
import { metricsAt } from '../metrics.js';

export interface EmulatedModel {
  id: string;
  entity: string;
  project: string;
  name: string;
  base_model: string;
  run_id: string;
  created_at: string;
}

export interface EmulatedCheckpoint {
  id: string;
  step: number;
  metrics: Record<string, number>;
}

export interface LoggedTrajectories {
  model_id: string;
  split: string;
  trajectory_groups: unknown[];
  received_at: string;
}

/** What the emulator says it can train (GET /v1/preview/base-models; api-contract.md §2.8). */
export const TRAINABLE_BASE_MODELS = [
  'OpenPipe/Qwen3-14B-Instruct',
  'Qwen/Qwen3-30B-A3B-Instruct-2507',
] as const;

/** Document ids: a model's checkpoints and logs sort under it, checkpoints by step. */
const checkpointId = (modelId: string, step: number) => `${modelId}/${seqId(step)}`;

export class ModelStore {
  readonly models = new Map<string, EmulatedModel>();
  /**
   * By model id, kept sorted by step; read from the state directory the first time a model's are
   * asked for (checkpointsOf), not at start-up.
   */
  private readonly checkpoints = new Map<string, EmulatedCheckpoint[]>();
  logs: LoggedTrajectories[] = [];
  private logCount = 0;

  constructor(private readonly persist: Persistence = noPersistence) {
    for (const { value } of persist.list<EmulatedModel>('model')) this.models.set(value.id, value);
    const logs = persist.list<LoggedTrajectories & { n: number }>('log').map((doc) => doc.value);
    logs.sort((a, b) => a.n - b.n);
    this.logs = logs.map(({ n: _n, ...log }) => log);
    this.logCount = logs.at(-1)?.n ?? 0;
  }

  findByName(entity: string, project: string, name: string): EmulatedModel | undefined {
    for (const model of this.models.values()) {
      if (model.entity === entity && model.project === project && model.name === name) return model;
    }
    return undefined;
  }

  /** A new model, with the untrained step-0 checkpoint every model starts with. */
  create(fields: Pick<EmulatedModel, 'entity' | 'project' | 'name' | 'base_model'>): EmulatedModel {
    const model: EmulatedModel = {
      id: randomUUID(),
      ...fields,
      run_id: randomBytes(4).toString('hex'),
      created_at: new Date().toISOString(),
    };
    const step0: EmulatedCheckpoint = { id: randomUUID(), step: 0, metrics: {} };
    this.persist.batch(() => {
      this.persist.put('model', model.id, model);
      this.persist.put('checkpoint', checkpointId(model.id, 0), step0);
    });
    this.models.set(model.id, model);
    this.checkpoints.set(model.id, [step0]);
    return model;
  }

  /** Trajectories logged to a model (POST …/log), kept in the order they came. */
  addLog(log: LoggedTrajectories): void {
    const n = ++this.logCount;
    this.persist.put('log', `${log.model_id}/${seqId(n)}`, { ...log, n });
    this.logs.push(log);
  }

  /** Removes the model and everything of it; the number of checkpoints it had. */
  delete(id: string): number {
    const count = this.checkpointsOf(id).length;
    this.persist.batch(() => {
      this.persist.remove('model', id);
      this.persist.removePrefix('checkpoint', `${id}/`);
      this.persist.removePrefix('log', `${id}/`);
    });
    this.models.delete(id);
    this.checkpoints.delete(id);
    this.logs = this.logs.filter((log) => log.model_id !== id);
    return count;
  }

  checkpointsOf(id: string): EmulatedCheckpoint[] {
    const list = this.checkpoints.get(id);
    if (list || !this.models.has(id)) return list ?? [];
    // Ids sort by step (seqId), so the documents come in step order.
    const read = this.persist.listPrefix<EmulatedCheckpoint>('checkpoint', `${id}/`).map((doc) => doc.value);
    this.checkpoints.set(id, read);
    return read;
  }

  /** Checkpoints there are (for status): counted by SQLite when they are kept there. */
  checkpointCount(): number {
    if (this.persist.durable) return this.persist.count('checkpoint');
    let n = 0;
    for (const list of this.checkpoints.values()) n += list.length;
    return n;
  }

  /**
   * The checkpoints a model had before a change that could not be written (jobs.ts): that list, as
   * long as it was (a step is appended to it in place).
   */
  putBackCheckpoints(id: string, checkpoints: EmulatedCheckpoint[], length: number): void {
    checkpoints.length = length;
    if (this.checkpoints.has(id)) this.checkpoints.set(id, checkpoints);
  }

  /** Adds (or replaces) the checkpoints of these steps; metrics default to the emulator's curve. */
  addCheckpoints(id: string, steps: readonly number[], metrics?: Record<string, number>): void {
    const replaced = new Set(steps);
    const list = this.checkpointsOf(id);
    const added = [...replaced].map((step) => ({
      id: randomUUID(),
      step,
      metrics: metrics ?? metricsAt(step, id),
    }));
    this.persist.batch(() => {
      for (const checkpoint of added)
        this.persist.put('checkpoint', checkpointId(id, checkpoint.step), checkpoint);
    });
    // Steps past the last (what a training step adds) are appended in place: the list's cursor index
    // (paging.ts) then extends over them rather than being built again.
    const last = list.at(-1)?.step ?? -1;
    if (added.every((c) => c.step > last) && this.checkpoints.has(id)) {
      list.push(...added.sort((a, b) => a.step - b.step));
      return;
    }
    const kept = list.filter((c) => !replaced.has(c.step));
    kept.push(...added);
    kept.sort((a, b) => a.step - b.step);
    this.checkpoints.set(id, kept);
  }

  /** Deletes the checkpoints of these steps; the steps that had none. */
  deleteSteps(id: string, steps: number[]): { deleted: number; notFound: number[] } {
    const list = this.checkpointsOf(id);
    const wanted = new Set(steps);
    const present = new Set(list.map((c) => c.step));
    this.persist.batch(() => {
      for (const step of wanted)
        if (present.has(step)) this.persist.remove('checkpoint', checkpointId(id, step));
    });
    this.checkpoints.set(
      id,
      list.filter((c) => !wanted.has(c.step)),
    );
    const notFound = [...wanted].filter((s) => !present.has(s));
    return { deleted: wanted.size - notFound.length, notFound };
  }

  clear(): void {
    this.persist.batch(() => {
      for (const kind of ['model', 'checkpoint', 'log'] as const) this.persist.removePrefix(kind, '');
    });
    this.models.clear();
    this.checkpoints.clear();
    this.logs = [];
    this.logCount = 0;
  }
}
