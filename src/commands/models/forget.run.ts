// `aip models forget <model>… | --all | --stale`: drop remembered names (models.json) of this base URL.
// The server is never asked to change anything; --stale only asks which models it still knows.

import type { Context } from '../../context.js';
import { NotFoundError } from '../../errors/errors.js';
import {
  forgetModels,
  fullName,
  type RememberedModel,
  readModelRecord,
  resolveModel,
} from '../../models/local-record.js';
import { modelIsGone, modelRecordFile } from '../../models/resolve.js';
import { runForget } from '../forget-remembered.js';
import type { ForgetOptions } from './forget.js';

export async function runModelsForget(
  ctx: Context,
  refs: readonly string[],
  options: ForgetOptions,
): Promise<void> {
  const file = modelRecordFile(ctx);
  const baseUrl = ctx.serviceUrl('training');
  await runForget<RememberedModel>(
    ctx,
    {
      noun: 'model',
      read: () => readModelRecord(file).models,
      resolve: (ref) => {
        const { id, entry } = resolveModel(readModelRecord(file), ref, baseUrl);
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
