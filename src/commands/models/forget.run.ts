// `aip models forget <model>… | --all | --stale`: drop remembered names (models.json) of this base URL.
// The server is never asked to change anything; --stale only asks which models it still knows.

import type { Context } from '../../context.js';
import { NotFoundError } from '../../errors.js';
import { runForget } from '../../registry/forget.js';
import {
  forgetModels,
  fullName,
  type RegisteredModel,
  readModelRegistry,
  resolveModel,
} from '../../registry/models.js';
import type { ForgetOptions } from './forget.js';
import { modelIsGone, modelRegistryFile } from './resolve.js';

export async function runModelsForget(
  ctx: Context,
  refs: readonly string[],
  options: ForgetOptions,
): Promise<void> {
  const file = modelRegistryFile(ctx);
  const baseUrl = ctx.serviceUrl('training');
  await runForget<RegisteredModel>(
    ctx,
    {
      noun: 'model',
      read: () => readModelRegistry(file).models,
      resolve: (ref) => {
        const { id, entry } = resolveModel(readModelRegistry(file), ref, baseUrl);
        if (!entry)
          throw new NotFoundError(
            `model ${id} is not remembered for ${baseUrl}: nothing to forget (aip forgets only what it remembers)`,
          );
        return entry;
      },
      isGone: (entry) => modelIsGone(ctx, entry.id),
      forget: (ids) => forgetModels(file, ids, baseUrl),
      describe: (entry) => `${fullName(entry)} (${entry.id})`,
    },
    refs,
    // Named one by one: a flag renamed in forget.ts is an error here, not an option quietly dropped.
    { all: options.all, stale: options.stale },
  );
}
