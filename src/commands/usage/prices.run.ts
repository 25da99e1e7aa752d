// `aip usage prices`: the table `aip usage` and the budgets price with. Each model with its $ per
// million tokens in and out, and where the price comes from: the platform's page (and when it was read)
// or the user's prices file; then training, storage and trained checkpoints, which have no price of
// their own. --json gives the same as data.

import type { Context } from '../../context.js';
import { printTable } from '../../output/table.js';
import { LORA_PRICING_SOURCE, STORAGE_PRICING_SOURCE } from '../../usage/price-table.js';
import { loadPrices, type PriceEntry } from '../../usage/prices.js';

const perMtok = (n: number) => `$${n}`;

export async function runPrices(ctx: Context): Promise<void> {
  const { io } = ctx;
  const table = loadPrices(ctx);
  const entries: PriceEntry[] = [...table.models.values(), ...table.artifactPrefixes].sort((a, b) =>
    a.model.localeCompare(b.model),
  );
  if (ctx.json) {
    io.json({
      models: entries,
      prices_file: table.file,
      trained_checkpoints: { priced_as: 'base model', source: LORA_PRICING_SOURCE },
      training: table.training,
      storage: { price: null, source: STORAGE_PRICING_SOURCE },
    });
    return;
  }
  printTable(io, entries, [
    { header: 'model', value: (e) => e.model },
    { header: 'input $/Mtok', value: (e) => perMtok(e.input_per_mtok) },
    { header: 'output $/Mtok', value: (e) => perMtok(e.output_per_mtok) },
    {
      header: 'source',
      value: (e) => (e.origin === 'file' ? `${e.source}${e.note ? ` (${e.note})` : ''}` : e.source),
    },
    { header: 'read', value: (e) => e.read_on ?? '' },
  ]);
  io.info('');
  io.info(`Trained checkpoints (wandb-artifact:///…) are priced as their base model: ${LORA_PRICING_SOURCE}`);
  io.info(`Training: free during the public preview (${table.training.source})`);
  io.info(`Checkpoint storage: no price per GB published, not counted (${STORAGE_PRICING_SOURCE})`);
  io.info(
    table.file.found
      ? `Your prices: ${table.file.path} (its entries win over the built-in ones)`
      : `Your prices: none (${table.file.path} does not exist; docs/usage.md describes it)`,
  );
}
