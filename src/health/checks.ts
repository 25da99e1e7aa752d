// One interface's health, as `aip health` and `aip doctor` both ask it: one request, no key sent. The
// Training API has a health endpoint that must answer 2xx; for the inference and trace hosts the
// question is reachability, so any HTTP answer below 500 counts (a 401 or 405 is expected without a
// key; a 404 hints at a wrong URL).

import type { Context, Service } from '../context.js';
import { ApiError, CliError } from '../errors/errors.js';

type CheckStatus = 'ok' | 'reachable' | 'error' | 'unreachable';

export interface HealthCheck {
  interface: Service;
  url: string;
  ok: boolean;
  status: CheckStatus;
  http_status: number | null;
  latency_ms: number | null;
  message: string | null;
  response?: unknown;
}

/**
 * A check and, when it failed, why (not printed: --json shows the check, the exit code the cause); the
 * answer's Date header, for doctor's clock.
 */
export type Checked = { check: HealthCheck; error?: CliError; date?: string };

/** How hard to try: `health` takes the client's retries and --timeout; doctor one short attempt. */
export interface CheckOptions {
  retries?: number;
  timeoutMs?: number;
}

const PROBES: Record<Service, string> = {
  training: '/health',
  inference: '/models',
  trace: '/agents/otel/v1/traces',
};

function classify(status: number): { ok: boolean; status: CheckStatus; message: string | null } {
  if (status >= 200 && status < 300) return { ok: true, status: 'ok', message: null };
  return {
    ok: true,
    status: 'reachable',
    message: `HTTP ${status}${status === 401 || status === 403 ? ' (no key sent)' : ''}`,
  };
}

export async function checkInterface(
  ctx: Context,
  service: Service,
  options: CheckOptions = {},
): Promise<Checked> {
  const http = ctx.http(service, { auth: 'none' });
  const path = PROBES[service];
  const url = `${http.baseUrl}${path}`;
  try {
    const res = await http.request({
      method: 'GET',
      path,
      auth: false,
      retries: options.retries,
      timeoutMs: options.timeoutMs,
      // The training health endpoint must answer 2xx; elsewhere any answer below 500 is informative.
      accept: service === 'training' ? undefined : (s) => s < 500,
    });
    const verdict = classify(res.status);
    const result: HealthCheck = {
      interface: service,
      url,
      ok: verdict.ok,
      status: verdict.status,
      http_status: res.status,
      latency_ms: Math.round(res.elapsedMs * 10) / 10,
      message: verdict.message,
    };
    if (service === 'training') result.response = res.data ?? null;
    return { check: result, date: res.headers.date };
  } catch (error) {
    if (!(error instanceof CliError)) throw error;
    const status = error instanceof ApiError ? error.status : null;
    const failed: HealthCheck = {
      interface: service,
      url,
      ok: false,
      status: status === null ? 'unreachable' : 'error',
      http_status: status,
      latency_ms: null,
      message: error.message,
    };
    return { check: failed, error };
  }
}
