// `aip doctor`: every check that can explain a failure, in one table: the Node version, the config file
// and its directory (readable, and not open to others: as ssh judges its own), the key and where it
// comes from and where it is stored (keychain, file, environment), the project, each interface (plain http off this machine, reachable, latency, the key
// accepted), the clock against the server's, and the proxy each interface goes through. Exit 1 when
// any check fails; a warning alone does not fail it.
//
// A diagnosis, not a workload: each request is sent once (no retries, whatever --max-retries says) with
// at most DOCTOR_TIMEOUT_MS unless --timeout is given, and all of them at once, so that an unreachable
// host gives its table in about one timeout, not after a chain of retries. The key is checked with
// requests whose answers the contract documents (auth/verify.ts); the clock is read from the training
// health answer, and its row says why when there was none.

import { describeRoute, proxyRoute, proxyVariablesSet } from '../../api/proxy.js';
import { keyLocation } from '../../auth/key-location.js';
import { type KeyProbe, probeInferenceKey, probeTrainingKey } from '../../auth/verify.js';
import type { Context, Service } from '../../context.js';
import { CliError, CommandFailedError } from '../../errors/errors.js';
import { type Checked, type CheckOptions, checkInterface } from '../../health/checks.js';
import { MIN_NODE, nodeSupport, SUPPORTED_LINES } from '../../lib/node-support.js';
import { isLoopbackHost, maskSecret } from '../../output/secrets.js';
import { printTable } from '../../output/table.js';

type Status = 'ok' | 'warn' | 'fail';

export interface DoctorCheck {
  check: string;
  status: Status;
  detail: string;
}

/** Beyond this, signed URLs and TLS start to fail in ways that look like other problems. */
const MAX_CLOCK_SKEW_S = 60;

/** Each request's limit when --timeout is not given: an answer slower than this is a finding itself. */
export const DOCTOR_TIMEOUT_MS = 10_000;

/** One attempt each, within --timeout, or DOCTOR_TIMEOUT_MS when it is not given. */
function doctorBudget(ctx: Context): CheckOptions {
  return {
    retries: 0,
    timeoutMs: ctx.globals.timeout !== undefined ? ctx.timeoutMs : Math.min(ctx.timeoutMs, DOCTOR_TIMEOUT_MS),
  };
}

function nodeCheck(): DoctorCheck {
  const support = nodeSupport();
  const lines = SUPPORTED_LINES.join(', ');
  if (support.level === 'too-old')
    return {
      check: 'node',
      status: 'fail',
      detail: `${process.version} (aip needs ${MIN_NODE.major}.${MIN_NODE.minor} or newer; ${lines} are supported)`,
    };
  if (support.level === 'end-of-life')
    return {
      check: 'node',
      status: 'warn',
      detail: `${process.version} (end of life since ${support.since}: no more security fixes; aip is tested on ${lines})`,
    };
  return { check: 'node', status: 'ok', detail: process.version };
}

function configChecks(ctx: Context): DoctorCheck[] {
  const { settings } = ctx;
  const file = settings.configFile;
  let problems: ReturnType<typeof settings.permissionProblems>;
  let found: boolean;
  try {
    found = Object.keys(settings.config().profiles).length > 0;
    problems = settings.permissionProblems();
  } catch (error) {
    if (!(error instanceof CliError)) throw error;
    return [{ check: 'config file', status: 'fail', detail: error.message }];
  }
  const rows: DoctorCheck[] = problems.map((p) => ({
    check: p.path === file ? 'config file' : 'config directory',
    status: p.severity,
    detail: p.message,
  }));
  if (!rows.some((r) => r.check === 'config file'))
    rows.unshift({
      check: 'config file',
      status: 'ok',
      detail: found ? `${file} (mode and owner fine)` : `${file} (none yet: flags, environment and defaults)`,
    });
  return rows;
}

function keyChecks(ctx: Context): DoctorCheck[] {
  const key = ctx.settings.apiKey();
  const project = ctx.settings.resolve('project');
  return [
    key
      ? {
          check: 'api key',
          status: 'ok',
          detail: `${maskSecret(key.key)} (${key.source}; stored in ${keyLocation(ctx.settings, key.storage)})`,
        }
      : { check: 'api key', status: 'fail', detail: "none: run 'aip auth login' or set AIP_API_KEY" },
    project.value
      ? { check: 'project', status: 'ok', detail: `${project.value} (${project.source})` }
      : {
          check: 'project',
          status: 'warn',
          detail: 'not set: models create and traces need one (aip config set project team/project)',
        },
  ];
}

/** Plain http to another machine would carry the key in the clear: refused, so a failure here. */
function transportCheck(ctx: Context, service: Service): DoctorCheck | undefined {
  const url = new URL(ctx.serviceUrl(service));
  if (url.protocol !== 'http:' || isLoopbackHost(url.hostname)) return undefined;
  return {
    check: `${service} url`,
    status: 'fail',
    detail: `${url.href} is plain http to another machine: aip will not send the key there; use https://`,
  };
}

function interfaceRow(service: Service, checked: Checked, key: KeyProbe | undefined): DoctorCheck {
  const { check, error } = checked;
  const reach = check.latency_ms === null ? check.status : `${check.status} in ${check.latency_ms} ms`;
  if (error) return { check: service, status: 'fail', detail: `${check.url}: ${error.message}` };
  if (!key) return { check: service, status: 'ok', detail: `${check.url} ${reach}` };
  const status: Status = key.key === 'accepted' ? 'ok' : 'fail';
  const verdict =
    key.key === 'accepted' ? 'key accepted' : `key ${key.key}${key.detail ? `: ${key.detail}` : ''}`;
  return { check: service, status, detail: `${check.url} ${reach}, ${verdict}` };
}

/**
 * The server's clock, from the Date header of the training health answer (`training`: that check, or
 * nothing when it was not asked). Never left out: without an answer the row says why.
 */
function clockCheck(training: Checked | undefined): DoctorCheck {
  if (!training)
    return {
      check: 'clock',
      status: 'warn',
      detail: 'not checked: the training API was not asked (see training url)',
    };
  if (training.error)
    return {
      check: 'clock',
      status: 'warn',
      detail: `not checked: the training API's health endpoint did not answer (see the training row)`,
    };
  const date = training.date;
  const server = date ? Date.parse(date) : Number.NaN;
  if (Number.isNaN(server))
    return { check: 'clock', status: 'warn', detail: 'the server sent no Date header' };
  const skew = Math.round((Date.now() - server) / 1000);
  const ok = Math.abs(skew) <= MAX_CLOCK_SKEW_S;
  return {
    check: 'clock',
    status: ok ? 'ok' : 'warn',
    detail: `${Math.abs(skew)} s ${skew >= 0 ? 'ahead of' : 'behind'} the training API's${ok ? '' : ' (set the clock: time-stamped requests and TLS can fail)'}`,
  };
}

/**
 * The proxy each interface goes through (its password masked), or why none: interfaces that go the
 * same way share one entry. A proxy variable that is not an http(s) URL fails the check.
 */
async function proxyCheck(ctx: Context, services: Service[]): Promise<DoctorCheck> {
  if (proxyVariablesSet().length === 0)
    return { check: 'proxy', status: 'ok', detail: 'none (no proxy variables set)' };
  const ways = new Map<string, Service[]>();
  try {
    for (const service of services) {
      const url = new URL(ctx.serviceUrl(service));
      const way = describeRoute(await proxyRoute(url), url) ?? 'none';
      ways.set(way, [...(ways.get(way) ?? []), service]);
    }
  } catch (error) {
    if (!(error instanceof CliError)) throw error;
    return { check: 'proxy', status: 'fail', detail: error.message };
  }
  const detail = [...ways].map(([way, names]) => `${names.join(', ')}: ${way}`).join('; ');
  return { check: 'proxy', status: 'ok', detail };
}

export async function runDoctor(ctx: Context): Promise<void> {
  const { io } = ctx;
  // Its table says what a warning would: said once, there.
  ctx.settings.silencePermissionWarnings();
  const services: Service[] = ['training', 'inference', 'trace'];
  const budget = doctorBudget(ctx);
  const rows = await io.withSpinner('Checking…', async () => {
    const key = ctx.settings.apiKey()?.key;
    const plain = services.flatMap((s) => transportCheck(ctx, s) ?? []);
    const asked = services.filter((s) => !plain.some((p) => p.check === `${s} url`));
    // Everything at once: the table comes after the slowest single request.
    const [training, inference, checks, proxy] = await Promise.all([
      key && asked.includes('training') ? probeTrainingKey(ctx, key, budget) : undefined,
      key && asked.includes('inference') ? probeInferenceKey(ctx, key, budget) : undefined,
      Promise.all(asked.map(async (s) => [s, await checkInterface(ctx, s, budget)] as const)),
      proxyCheck(ctx, services),
    ]);
    const keyOf: Record<Service, KeyProbe | undefined> = { training, inference, trace: undefined };
    const checked = new Map(checks);
    return [
      nodeCheck(),
      ...configChecks(ctx),
      ...keyChecks(ctx),
      ...plain,
      ...checks.map(([s, c]) => interfaceRow(s, c, keyOf[s])),
      clockCheck(checked.get('training')),
      proxy,
    ];
  });
  if (ctx.json) io.json(rows);
  else if (!io.quiet) {
    printTable(io, rows, [
      { header: 'check', value: (r) => r.check },
      {
        header: 'status',
        value: (r) => r.status,
        color: (text, r, style) =>
          r.status === 'ok' ? style.green(text) : r.status === 'warn' ? style.yellow(text) : style.red(text),
      },
      { header: 'detail', value: (r) => r.detail },
    ]);
  }
  const failed = rows.filter((r) => r.status === 'fail');
  if (failed.length > 0)
    throw new CommandFailedError(
      `doctor found ${failed.length} problem${failed.length === 1 ? '' : 's'}: ${failed.map((r) => r.check).join(', ')}`,
    );
}
