// `aip system-check`: the Training API's own component checks. Their exact body is unpublished
// (api-contract.md §6.3), so each top-level entry is read as a component when it is a boolean or an
// object carrying success/ok/healthy, with an optional duration and error.

import type { Context } from '../../context.js';
import { CommandFailedError } from '../../errors/errors.js';
import { isObject } from '../../lib/json.js';
import { cellText, printTable } from '../../output/table.js';

/** The components the published contract names (api-contract.md §2.3). */
const COMPONENTS = ['api', 'database', 'cpu_queue', 'gpu_queue'];

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

/** Top-level entries that are not components, named in the note under the table. */
function otherKeys(body: unknown, components: Component[]): string[] {
  if (!isObject(body)) return [];
  const known = new Set(components.map((c) => c.component));
  return Object.keys(body).filter((key) => !known.has(key));
}

/** The failure to end with: components reported failing, or a 503 (whose body may say why). */
function failureOf(status: number, body: unknown, components: Component[]): CommandFailedError | undefined {
  const failed = components.filter((c) => !c.ok);
  if (failed.length > 0) {
    const names = failed.map((c) => (c.error ? `${c.component} (${c.error})` : c.component));
    return new CommandFailedError(`system check failed: ${names.join(', ')}`);
  }
  if (status !== 503) return undefined;
  const detail = isObject(body) ? cellText(body.detail) : '';
  return new CommandFailedError(`system check failed (HTTP 503${detail ? `: ${detail}` : ''})`);
}

/**
 * Prints what the server said: its components as a table when the body has any, else the body itself
 * with a note on stderr, so that neither a person nor a script is left guessing. Fails (exit 1) when a
 * component is reported failing or the answer is a 503; any other status is an error before this.
 */
export async function runSystemCheck(ctx: Context): Promise<void> {
  const { io } = ctx;
  const res = await ctx.training({ auth: 'none' }).systemCheck();
  const components = componentsOf(res.data);
  // A FastAPI error body ({"detail": …}) on a 503 is said in the error line; anything else is shown.
  const errorBody =
    res.status === 503 && isObject(res.data) && Object.keys(res.data).length === 1 && 'detail' in res.data;
  if (ctx.json) io.json(res.data ?? null);
  else if (components.length === 0) {
    if (!io.quiet && !errorBody) {
      io.warn(
        `the answer of GET /system-check is not in a shape aip knows (components such as ${COMPONENTS.join(', ')}); here it is as it came (HTTP ${res.status})`,
      );
      if (typeof res.data === 'string') io.out(res.data);
      else io.json(res.data ?? null);
    }
  } else if (!io.quiet) {
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
    const others = otherKeys(res.data, components);
    if (others.length > 0)
      io.info(`also in the answer (not components): ${others.join(', ')}; --json shows them`);
  }
  const failure = failureOf(res.status, res.data, components);
  if (failure) throw failure;
}
