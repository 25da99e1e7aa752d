import { listInferenceModelsDirect } from '../../api/inference-models.js';
import type { Context } from '../../context.js';
import { fullName, readModelRecord } from '../../models/local-record.js';
import { modelRecordFile } from '../../models/resolve.js';
import { printTable } from '../../output/table.js';
import { showTime } from '../../output/time.js';

export async function runList(ctx: Context): Promise<void> {
  const { io } = ctx;
  await ctx.pageLongOutput();
  // Over aip's own client, not the openai SDK (api/inference-models.ts): the same request and errors,
  // without loading the SDK.
  const models = await listInferenceModelsDirect(ctx);
  if (ctx.json) return io.json(models);
  if (io.quiet) {
    for (const model of models) io.out(model.id);
    return;
  }
  // An empty list has happened on the real service (api-contract.md §3.4): say so, but it is no error.
  printTable(
    io,
    models,
    [
      { header: 'id', value: (m) => m.id },
      { header: 'owned by', value: (m) => m.owned_by },
    ],
    { empty: 'The inference API lists no models' },
  );
}

/**
 * `models list --remembered`: the trainable models this machine created against this base URL (the
 * local record, models/local-record.ts), newest first. Nothing is sent: the Training API has no list
 * of models, and a name the server no longer knows is still shown (`models forget --stale` drops them).
 */
export async function runListRemembered(ctx: Context): Promise<void> {
  const { io } = ctx;
  await ctx.pageLongOutput();
  const baseUrl = ctx.serviceUrl('training');
  const models = readModelRecord(modelRecordFile(ctx))
    .models.filter((m) => m.base_url === baseUrl)
    .reverse();
  if (ctx.json)
    return io.json(
      models.map((m) => ({
        id: m.id,
        name: fullName(m),
        entity: m.entity,
        project: m.project,
        base_model: m.base_model,
        created_at: typeof m.created_at === 'string' ? m.created_at : null,
      })),
    );
  if (io.quiet) {
    for (const model of models) io.out(model.id);
    return;
  }
  printTable(
    io,
    models,
    [
      { header: 'name', value: (m) => fullName(m) },
      { header: 'id', value: (m) => m.id },
      { header: 'base model', value: (m) => m.base_model },
      {
        header: 'created',
        value: (m) => (typeof m.created_at === 'string' ? showTime(io, m.created_at) : ''),
      },
    ],
    { empty: `No models were created from this machine against ${baseUrl}` },
  );
}
