// Training API routes for models, checkpoints and logged trajectories (api-contract.md §2.3).

import { randomUUID } from 'node:crypto';
import type { ModelCreate } from '../../api/types.js';
import { arr, bool, int, nullable, obj, str } from '../../validate/schema.js';
import { trajectoryGroup } from '../../validate/trajectory.js';
import type { Exchange } from '../exchange.js';
import { pageAfter, pageQuery } from '../paging.js';
import type { EmulatedModel } from '../store/models.js';
import { TRAINABLE_BASE_MODELS } from '../store/models.js';
import { QueryReader, validBody } from '../validation.js';
import type { EmulatorRouter } from './types.js';

const modelCreate = obj(
  { project: str, name: str, base_model: str },
  { entity: nullable(str), return_existing: bool },
);
const deleteCheckpoints = obj({ steps: arr(int) });
const logRequest = obj({ split: str, trajectory_groups: arr(trajectoryGroup) });

function modelResponse(m: EmulatedModel) {
  return {
    id: m.id,
    entity: m.entity,
    project: m.project,
    name: m.name,
    base_model: m.base_model,
    run_id: m.run_id,
  };
}

/** The model named in the path, or a 404 answered. */
function modelOf(x: Exchange): EmulatedModel | undefined {
  const model = x.state.models.models.get(x.params.model_id!);
  if (!model) x.error(404, `Model ${x.params.model_id} not found`);
  return model;
}

export function registerModelRoutes(router: EmulatorRouter): void {
  router.add('GET', '/training/v1/preview/base-models', {
    public: true,
    run: (x) => x.send(200, [...TRAINABLE_BASE_MODELS]),
  });

  router.add('POST', '/training/v1/preview/models', {
    run: (x) => {
      const body = validBody<ModelCreate>(x, modelCreate);
      if (!body) return;
      if (!(TRAINABLE_BASE_MODELS as readonly string[]).includes(body.base_model)) {
        return x.invalid([
          {
            type: 'value_error',
            loc: ['body', 'base_model'],
            msg: `Value error, ${body.base_model} cannot be trained here; trainable: ${TRAINABLE_BASE_MODELS.join(', ')}`,
          },
        ]);
      }
      // entity defaults to the team of the key (api-contract.md §2.3).
      const entity = body.entity ?? x.team!;
      const store = x.state.models;
      const existing = store.findByName(entity, body.project, body.name);
      if (existing) {
        if (body.return_existing) return x.send(200, modelResponse(existing));
        return x.error(
          409,
          `Model ${entity}/${body.project}/${body.name} already exists; pass return_existing to get it`,
        );
      }
      x.send(
        200,
        modelResponse(
          store.create({ entity, project: body.project, name: body.name, base_model: body.base_model }),
        ),
      );
    },
  });

  router.add('DELETE', '/training/v1/preview/models/:model_id', {
    run: (x) => {
      const model = modelOf(x);
      if (!model) return;
      const deleted = x.state.models.delete(model.id);
      x.send(200, { model_id: model.id, deleted_checkpoints: deleted, deleted_run: true });
    },
  });

  router.add('GET', '/training/v1/preview/models/:model_id/checkpoints', {
    run: (x) => {
      const query = new QueryReader(x);
      const cursor = pageQuery(query);
      const order = query.oneOf('order', ['asc', 'desc'] as const, 'asc');
      if (query.answer()) return;
      const model = modelOf(x);
      if (!model) return;
      const checkpoints = x.state.models.checkpointsOf(model.id);
      const page = pageAfter(x, checkpoints, cursor, { item: 'checkpoint', owner: 'model' }, order);
      if (page) x.send(200, page);
    },
  });

  router.add('DELETE', '/training/v1/preview/models/:model_id/checkpoints', {
    run: (x) => {
      const body = validBody<{ steps: number[] }>(x, deleteCheckpoints);
      if (!body) return;
      const model = modelOf(x);
      if (!model) return;
      const { deleted, notFound } = x.state.models.deleteSteps(model.id, body.steps);
      x.send(200, { deleted_count: deleted, not_found_steps: notFound });
    },
  });

  router.add('POST', '/training/v1/preview/models/:model_id/log', {
    run: (x) => {
      const body = validBody<{
        split: string;
        trajectory_groups: Array<{ trajectories: Array<{ reward?: number }> }>;
      }>(x, logRequest);
      if (!body) return;
      const model = modelOf(x);
      if (!model) return;
      x.state.models.addLog({
        model_id: model.id,
        split: body.split,
        trajectory_groups: body.trajectory_groups,
        received_at: new Date().toISOString(),
      });
      const rewards = body.trajectory_groups.flatMap((g) => g.trajectories.map((t) => t.reward ?? 0));
      const mean = rewards.length ? rewards.reduce((a, b) => a + b, 0) / rewards.length : null;
      x.send(200, {
        id: randomUUID(),
        split: body.split,
        groups: body.trajectory_groups.length,
        trajectories: rewards.length,
        metrics: { reward_mean: mean },
      });
    },
  });
}
