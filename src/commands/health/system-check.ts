// `aip system-check`: the Training API's own component checks. Their exact body is unpublished
// (api-contract.md §6.3), so each top-level entry is read as a component when it is a boolean or an
// object carrying success/ok/healthy, with an optional duration and error.

import type { Context } from '../../context.js';
import { CommandFailedError } from '../../errors.js';
import { cellText, printTable } from '../../output/table.js';

export interface Component {
  component: string;
  ok: boolean;
  /** duration_ms as given, or duration / duration_s (seconds, as Python services report) in ms. */
  duration_ms: number | null;
  error: string | null;
}

function asComponent(name: string, value: unknown): Component | undefined {
  if (typeof value === 'boolean') return { component: name, ok: value, duration_ms: null, error: null };
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const v = value as Record<string, unknown>;
  const flag = [v.success, v.ok, v.healthy].find((x) => typeof x === 'boolean');
  if (typeof flag !== 'boolean') return undefined;
  const seconds = [v.duration, v.duration_s].find((x) => typeof x === 'number');
  const ms =
    typeof v.duration_ms === 'number' ? v.duration_ms : typeof seconds === 'number' ? seconds * 1000 : null;
  const error = v.error ?? v.errors ?? v.message ?? null;
  return {
    component: name,
    ok: flag,
    duration_ms: ms === null ? null : Math.round(ms * 100) / 100,
    error: error === null || (Array.isArray(error) && error.length === 0) ? null : cellText(error),
  };
}

export function componentsOf(body: unknown): Component[] {
  if (typeof body !== 'object' || body === null) return [];
  return Object.entries(body).flatMap(([name, value]) => asComponent(name, value) ?? []);
}

export async function runSystemCheck(ctx: Context): Promise<void> {
  const { io } = ctx;
  const res = await ctx.training({ auth: 'none' }).systemCheck();
  const components = componentsOf(res.data);
  if (res.status === 503 && components.length === 0) {
    const detail =
      typeof res.data === 'object' && res.data ? cellText((res.data as { detail?: unknown }).detail) : '';
    throw new CommandFailedError(`system check failed (HTTP 503${detail ? `: ${detail}` : ''})`);
  }
  if (ctx.json) io.json(res.data ?? null);
  else if (!io.quiet) {
    printTable(io, components, [
      { header: 'component', value: (c) => c.component },
      {
        header: 'status',
        value: (c) => (c.ok ? 'ok' : 'failed'),
        color: (text, c, style) => (c.ok ? style.green(text) : style.red(text)),
      },
      {
        header: 'duration',
        value: (c) => (c.duration_ms === null ? '' : io.isStdoutTTY ? `${c.duration_ms} ms` : c.duration_ms),
      },
      { header: 'error', value: (c) => c.error },
    ]);
  }
  const failed = components.filter((c) => !c.ok);
  if (res.status === 503 || failed.length > 0) {
    const names = failed.map((c) => (c.error ? `${c.component} (${c.error})` : c.component));
    throw new CommandFailedError(
      `system check failed${names.length ? `: ${names.join(', ')}` : ' (HTTP 503)'}`,
    );
  }
}
