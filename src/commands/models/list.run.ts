import { openaiClient, sdkCall } from '../../api/openai.js';
import type { Context } from '../../context.js';
import { printTable } from '../../output/table.js';

export async function runList(ctx: Context): Promise<void> {
  const { io } = ctx;
  await ctx.pageLongOutput();
  const client = await openaiClient(ctx, 'inference');
  const where = { method: 'GET', url: `${ctx.serviceUrl('inference')}/models`, timeoutMs: ctx.timeoutMs };
  const models = await sdkCall('inference', where, async () => {
    const all = [];
    for await (const model of client.models.list()) all.push(model);
    return all;
  });
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
