// `aip events <job>`: one page, --all pages, or --follow until the job ends. Output as a table on a
// terminal, TSV when piped (type, id, data as JSON), one JSON array with --json, or JSON Lines written
// as each event arrives with --jsonl. --follow never prints an event twice and, on Ctrl-C, says where
// to resume.

import { allPages } from '../../api/pagination.js';
import type { JobEvent } from '../../api/types.js';
import { type Context, DEFAULT_TIMEOUT_SECONDS } from '../../context.js';
import { InterruptedError, WaitTimeoutError } from '../../errors/errors.js';
import { followEvents } from '../../jobs/follow.js';
import { resolveJobRef, withJob } from '../../jobs/resolve.js';
import { stepSummary } from '../../jobs/state.js';
import { DEFAULT_INTERVAL_SECONDS } from '../../jobs/watch.js';
import { withArgument } from '../../lib/shell-word.js';
import { exactJson } from '../../output/io.js';
import { cellText, type TableWriter, tableWriter, tsvField } from '../../output/table.js';
import type { EventsOptions } from './events.js';

/** The data of an event in a few words: "step 3 reward=0.5 loss=0.2", "10 steps", the error. */
export function eventDetail(event: JobEvent): string {
  const data = event.data ?? {};
  switch (event.type) {
    case 'training_started':
      return `${data.num_sequences ?? '?'} steps`;
    case 'gradient_step':
      return `${typeof data.gradient_step === 'number' ? `step ${data.gradient_step} ` : ''}${stepSummary(data)}`.trim();
    case 'training_failed':
      return String(data.error_message ?? '');
    default:
      return Object.keys(data).length ? JSON.stringify(data) : '';
  }
}

const NO_EVENTS = 'No events';

/** Writes events one by one in the chosen format (for --follow and --jsonl, as they arrive). */
function eventWriter(ctx: Context): (event: JobEvent) => void {
  const { io } = ctx;
  if (io.quiet) return (e) => io.out(e.id);
  return (e) => {
    // A server's line break or tab in a field would start a row of its own: shown as a table shows it.
    if (!io.isStdoutTTY)
      io.out([e.type, e.id, JSON.stringify(e.data)].map((f) => tsvField(cellText(f))).join('\t'));
    else io.out(`${io.style.bold(cellText(e.type).padEnd(16))}${cellText(eventDetail(e))}`);
  };
}

function printEvents(ctx: Context, events: readonly JobEvent[]): void {
  const table = eventTable(ctx);
  table.add(events);
  table.end();
}

/** The table of events, written as pages of them come (--all); with --quiet, their ids. */
function eventTable(ctx: Context): TableWriter<JobEvent> {
  const { io } = ctx;
  if (io.quiet) {
    return {
      add: (events) => {
        for (const e of events) io.out(e.id);
      },
      end: () => {},
    };
  }
  return tableWriter<JobEvent>(
    io,
    [
      { header: 'type', value: (e) => e.type },
      { header: 'id', value: (e) => e.id },
      { header: 'data', value: (e) => (io.isStdoutTTY ? eventDetail(e) : JSON.stringify(e.data)) },
    ],
    { empty: NO_EVENTS },
  );
}

/**
 * --follow --json: one array, written an element at a time as events arrive (a follow may run for
 * days: nothing is kept), exactly as io.json would print it whole. An array that has begun is closed
 * however the follow ends, so stdout stays one JSON document even after an error; an empty one is
 * printed only when the follow itself ended (not when it failed before any event).
 */
function jsonArrayWriter(ctx: Context): {
  write: (event: JobEvent) => void;
  close: (ended: boolean) => void;
} {
  let count = 0;
  return {
    write: (event) => {
      const element = exactJson(JSON.stringify(event, null, 2)).replace(/\n/g, '\n  ');
      ctx.io.write(`${count++ === 0 ? '[\n' : ',\n'}  ${element}`);
    },
    close: (ended) => {
      if (count > 0) ctx.io.write('\n]\n');
      else if (ended) ctx.io.write('[]\n');
    },
  };
}

async function follow(ctx: Context, id: string, ref: string, options: EventsOptions): Promise<void> {
  const { io } = ctx;
  // --jq follows as --jsonl does: the filter runs on each event as it arrives, since the array of a
  // follow has no end to wait for.
  const lines = ctx.globals.jsonl || ctx.globals.jq !== undefined;
  const array = ctx.json && !lines ? jsonArrayWriter(ctx) : undefined;
  const write = lines ? (e: JobEvent) => io.jsonLine(e) : (array?.write ?? eventWriter(ctx));
  const timeout = ctx.globals.timeout;
  // Ctrl-C, or a reader that went away (`| head`), ends the follow.
  const { signal, release } = ctx.interruptible({ orStdoutClosed: true });
  let result: Awaited<ReturnType<typeof followEvents>>;
  let ended = false;
  try {
    result = await followEvents(ctx.training(), id, {
      after: options.after,
      pageSize: options.limit,
      intervalMs: (options.interval ?? DEFAULT_INTERVAL_SECONDS) * 1000,
      deadline: timeout === undefined ? undefined : Date.now() + timeout * 1000,
      signal,
      requestTimeoutMs: DEFAULT_TIMEOUT_SECONDS * 1000,
      sleep: ctx.deps.sleep,
      onEvent: write,
      onTrouble: (message) => io.warn(message),
    });
    ended = true;
  } finally {
    release();
    array?.close(ended);
  }
  const again = ['--follow', ...(result.cursor ? ['--after', result.cursor] : [])];
  if (ctx.globals.jsonl) again.push('--jsonl');
  if (ctx.globals.json) again.push('--json');
  if (options.interval !== undefined) again.push('--interval', String(options.interval));
  const resume = ctx.commandLine(withArgument(['events'], ref, again));
  if (result.end.kind === 'already-ended') {
    io.info(`The job has ended (${result.end.status}); there are no events after ${options.after}`);
  }
  if (result.end.kind === 'interrupted') {
    if (io.outputClosed) return; // the reader has what it wanted
    io.err(`Stopped following; resume with: ${resume}`);
    throw new InterruptedError();
  }
  if (result.end.kind === 'timeout')
    throw new WaitTimeoutError(
      `the job had not ended after the --timeout of ${timeout}s; resume with: ${resume}`,
    );
}

export async function runEvents(ctx: Context, ref: string, options: EventsOptions): Promise<void> {
  const job = resolveJobRef(ctx, ref);
  await withJob(ctx, job, () =>
    options.follow ? follow(ctx, job.id, ref, options) : list(ctx, job.id, ref, options),
  );
}

/** A page, or with --all every page. */
async function list(ctx: Context, id: string, ref: string, options: EventsOptions): Promise<void> {
  const { io } = ctx;
  await ctx.pageLongOutput();
  const training = ctx.training();
  if (options.all) {
    // --jsonl writes each event as it comes and keeps none: --all of a long job in bounded memory. A
    // table too (TSV when piped) is written a page at a time; only --json keeps them all for its array.
    const events: JobEvent[] = [];
    const table = ctx.json ? undefined : eventTable(ctx);
    let count = 0;
    for await (const page of allPages(
      (after) => training.listEvents(id, { after, limit: options.limit ?? 100 }),
      options.after,
      ctx.limits.pages,
      // No reader left (a pager quit, `| head`): no more pages are asked for.
      { stop: () => io.outputClosed },
    )) {
      if (io.outputClosed) return;
      count += page.length;
      if (ctx.globals.jsonl) {
        for (const event of page) {
          if (io.outputClosed) return;
          io.jsonLine(event);
          await io.drained();
        }
      } else if (table) {
        table.add(page);
        await io.drained();
      } else events.push(...page);
    }
    if (io.outputClosed) return;
    if (ctx.globals.jsonl) {
      if (count === 0) io.info(NO_EVENTS);
      return;
    }
    return table ? table.end() : io.json(events);
  }
  const page = await training.listEvents(id, { after: options.after, limit: options.limit });
  if (ctx.json) {
    // io.json prints the page one event per line under --jsonl, where an empty page says so on stderr.
    io.json(page.data);
    if (ctx.globals.jsonl && page.data.length === 0) io.info(NO_EVENTS);
  } else printEvents(ctx, page.data);
  if (page.has_more && page.last_id)
    io.info(
      `More events: ${ctx.commandLine(withArgument(['events'], ref, ['--after', page.last_id]))} (or --all, or --follow)`,
    );
}
