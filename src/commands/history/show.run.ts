// `aip history show ID`: everything the history holds of one command. --json gives it whole
// (history/query.ts InvocationDetail); otherwise its fields, then what it noted and created, its usage
// per model, and the bodies when they were kept. Every string goes out through the IO, which shows
// rather than acts on any control character in it.

import type { Context } from '../../context.js';
import { type InvocationDetail, showInvocation } from '../../history/query.js';
import { exactJson } from '../../output/io.js';
import { printFields, printTable } from '../../output/table.js';
import { formatDuration } from '../../output/time.js';
import { commandLine, endText } from './format.js';

function fields(d: InvocationDetail): Array<[string, unknown]> {
  const all: Array<[string, unknown]> = [
    ['id', d.id],
    ['run', d.run],
    ['command', commandLine(d)],
    ['profile', d.profile],
    ['training url', d.training_url],
    ['inference url', d.inference_url],
    ['trace url', d.trace_url],
    ['project', d.project],
    ['cwd', d.cwd],
    ['aip', d.version],
    ['process', d.pid === null ? null : `${d.pid}${d.host ? `@${d.host}` : ''}`],
    ['started', d.at],
    ['ended', d.ended_at],
    ['duration', d.duration_ms === null ? null : formatDuration(d.duration_ms)],
    ['exit', endText(d)],
    ['error', d.error],
    ['requests', d.requests],
    ['samples', d.samples],
    ['tokens in', d.prompt_tokens],
    ['tokens out', d.completion_tokens],
  ];
  return all.filter(([, value]) => value !== null && value !== '');
}

function section(ctx: Context, title: string): void {
  ctx.io.out();
  ctx.io.out(ctx.io.isStdoutTTY ? ctx.io.style.bold(title) : `# ${title}`);
}

function details(ctx: Context, d: InvocationDetail): void {
  const { io } = ctx;
  const notes = d.notes.filter((n) => n.model || n.job || n.ref);
  if (notes.length > 0) {
    section(ctx, 'notes');
    printTable(io, notes, [
      { header: 'at', value: (n) => n.at },
      { header: 'model', value: (n) => n.model },
      { header: 'job', value: (n) => n.job },
      { header: 'ref', value: (n) => n.ref },
    ]);
  }
  if (d.created.length > 0) {
    section(ctx, 'created');
    printTable(io, d.created, [
      { header: 'what', value: (c) => c.what },
      { header: 'id', value: (c) => c.object_id },
      { header: 'name', value: (c) => c.name },
      { header: 'kind', value: (c) => c.kind },
      { header: 'base url', value: (c) => c.base_url },
    ]);
  }
  if (d.usage.length > 0) {
    section(ctx, 'usage');
    printTable(io, d.usage, [
      { header: 'api', value: (u) => u.api },
      { header: 'model', value: (u) => u.model },
      { header: 'purpose', value: (u) => u.purpose },
      { header: 'requests', value: (u) => u.requests },
      { header: 'samples', value: (u) => u.samples },
      { header: 'tokens in', value: (u) => u.prompt_tokens },
      { header: 'tokens out', value: (u) => u.completion_tokens },
    ]);
  }
  if (d.bodies.length > 0) {
    section(ctx, `bodies (${d.bodies.length})`);
    for (const body of d.bodies) {
      io.out(`${body.at} ${body.api} ${body.purpose} ${body.model}`);
      io.out(exactJson(JSON.stringify({ request: body.request, response: body.response }, null, 2)));
    }
  }
}

export async function runShow(ctx: Context, id: string): Promise<void> {
  const detail = await showInvocation(ctx, id);
  if (ctx.json) {
    ctx.io.json(detail);
    return;
  }
  await ctx.pageLongOutput();
  printFields(ctx.io, fields(detail));
  details(ctx, detail);
}
