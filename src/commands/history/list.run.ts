// `aip history`: the invocations the filters select, newest first (history/query.ts folds the journal
// first). On a terminal a table, its command lines shortened to fit; piped, tab-separated rows whole;
// --json, --jsonl, --jq the summaries as they are.

import type { Context } from '../../context.js';
import { historyDir } from '../../history/paths.js';
import { type InvocationSummary, listInvocations } from '../../history/query.js';
import { HISTORY_ENV, historySwitch } from '../../history/switch.js';
import type { IO } from '../../output/io.js';
import { printTable } from '../../output/table.js';
import { formatDuration, showTime } from '../../output/time.js';
import { DEFAULT_LIMIT } from './arguments.js';
import { commandLine, endText, shortened } from './format.js';
import type { ListOptions } from './list.js';

/** 1234 as "1234", 12345 as "12.3k", 1234567 as "1.2M" on a terminal; whole when piped. */
function tokens(n: number, tty: boolean): string {
  if (!tty || n < 10_000) return String(n);
  if (n < 1_000_000) return `${(n / 1000).toFixed(1)}k`;
  return `${(n / 1_000_000).toFixed(1)}M`;
}

/** What to say when nothing is listed: that nothing matches, or why nothing is kept. */
function emptyHint(ctx: Context, filtered: boolean): string {
  if (filtered) return 'No command in the history matches';
  const kept = historySwitch(ctx.env, historyDir(ctx.env));
  if (!kept.enabled)
    return ctx.env[HISTORY_ENV] !== undefined
      ? `No command is in the history: ${HISTORY_ENV}=${ctx.env[HISTORY_ENV]} keeps none`
      : 'No command is in the history: it is off (aip history on turns it on)';
  return 'No command is in the history yet: it keeps the commands that talk to the platform';
}

function table(io: IO, rows: InvocationSummary[], empty: string): void {
  const tty = io.isStdoutTTY;
  printTable(
    io,
    rows,
    [
      { header: 'id', value: (r) => r.id },
      { header: 'when', value: (r) => showTime(io, r.at) },
      { header: 'command', value: (r) => shortened(commandLine(r), tty) },
      {
        header: 'exit',
        value: endText,
        color: (text, _r, style) =>
          text === '0' ? style.green(text) : text === 'running' ? style.yellow(text) : style.red(text),
      },
      { header: 'duration', value: (r) => (r.duration_ms === null ? '' : formatDuration(r.duration_ms)) },
      { header: 'tokens in', value: (r) => tokens(r.prompt_tokens, tty) },
      { header: 'tokens out', value: (r) => tokens(r.completion_tokens, tty) },
      { header: 'created', value: (r) => r.created.join(tty ? ', ' : ',') },
    ],
    { empty },
  );
}

export async function runList(ctx: Context, options: ListOptions): Promise<void> {
  const { io } = ctx;
  const rows = await listInvocations(ctx, {
    since: options.since,
    until: options.until,
    command: options.command,
    model: options.model,
    job: options.job,
    search: options.search,
    limit: options.limit ?? DEFAULT_LIMIT,
  });
  if (ctx.json) {
    io.json(rows);
    return;
  }
  if (io.quiet) {
    for (const row of rows) io.out(String(row.id));
    return;
  }
  await ctx.pageLongOutput();
  const filtered = [
    options.since,
    options.until,
    options.command,
    options.model,
    options.job,
    options.search,
  ].some((value) => value !== undefined);
  table(io, rows, rows.length === 0 ? emptyHint(ctx, filtered) : '');
}
