// Inference API routes of the foundation: the OpenAI-shaped model list, which `aip auth` uses to
// check a key.

import { CATALOG_CREATED, INFERENCE_MODELS } from '../catalog.js';
import type { EmulatorRouter } from './types.js';

export function registerInferenceRoutes(router: EmulatorRouter): void {
  router.add('GET', '/inference/v1/models', {
    run: (x) =>
      x.send(200, {
        object: 'list',
        data: INFERENCE_MODELS.map((id) => ({
          id,
          object: 'model',
          created: CATALOG_CREATED,
          owned_by: 'system',
          root: id,
        })),
      }),
  });
}
