import type { Context } from '../../context.js';
import { type Column, printTable } from '../../output/table.js';
import { SETTING_KEYS } from '../../settings/keys.js';
import type { Resolved } from '../../settings/resolve.js';
import type { ListOptions } from './list.js';

type Row = Resolved & { key: string };

export async function runList(ctx: Context, opts: ListOptions): Promise<void> {
  const { io, settings } = ctx;
  const rows: Row[] = SETTING_KEYS.map((key) => ({ key, ...settings.resolve(key) }));
  if (ctx.json) {
    const value = (r: Row) =>
      opts.sources ? { value: r.value ?? null, source: r.source } : (r.value ?? null);
    io.json(Object.fromEntries(rows.map((r) => [r.key, value(r)])));
    return;
  }
  const columns: Column<Row>[] = [
    { header: 'key', value: (r) => r.key },
    { header: 'value', value: (r) => r.value ?? '' },
  ];
  if (opts.sources)
    columns.push({ header: 'source', value: (r) => r.source, color: (text, _r, s) => s.dim(text) });
  printTable(io, rows, columns);
}
