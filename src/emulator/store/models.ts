// The emulator's trainable models, their checkpoints and the trajectories logged to them.

import { randomBytes, randomUUID } from 'node:crypto';
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

export class ModelStore {
  readonly models = new Map<string, EmulatedModel>();
  /** By model id, kept sorted by step. */
  readonly checkpoints = new Map<string, EmulatedCheckpoint[]>();
  logs: LoggedTrajectories[] = [];

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
    this.models.set(model.id, model);
    this.checkpoints.set(model.id, [{ id: randomUUID(), step: 0, metrics: {} }]);
    return model;
  }

  /** Removes the model and everything of it; the number of checkpoints it had. */
  delete(id: string): number {
    const count = this.checkpoints.get(id)?.length ?? 0;
    this.models.delete(id);
    this.checkpoints.delete(id);
    this.logs = this.logs.filter((log) => log.model_id !== id);
    return count;
  }

  checkpointsOf(id: string): EmulatedCheckpoint[] {
    return this.checkpoints.get(id) ?? [];
  }

  /** Adds (or replaces) the checkpoints of these steps; metrics default to the emulator's curve. */
  addCheckpoints(id: string, steps: readonly number[], metrics?: Record<string, number>): void {
    const replaced = new Set(steps);
    const kept = (this.checkpoints.get(id) ?? []).filter((c) => !replaced.has(c.step));
    for (const step of replaced)
      kept.push({ id: randomUUID(), step, metrics: metrics ?? metricsAt(step, id) });
    kept.sort((a, b) => a.step - b.step);
    this.checkpoints.set(id, kept);
  }

  /** Deletes the checkpoints of these steps; the steps that had none. */
  deleteSteps(id: string, steps: number[]): { deleted: number; notFound: number[] } {
    const list = this.checkpoints.get(id) ?? [];
    const wanted = new Set(steps);
    const present = new Set(list.map((c) => c.step));
    this.checkpoints.set(
      id,
      list.filter((c) => !wanted.has(c.step)),
    );
    const notFound = [...wanted].filter((s) => !present.has(s));
    return { deleted: wanted.size - notFound.length, notFound };
  }

  clear(): void {
    this.models.clear();
    this.checkpoints.clear();
    this.logs = [];
  }
}
