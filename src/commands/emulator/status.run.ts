import type { Context } from '../../context.js';
import { CommandFailedError } from '../../errors/errors.js';
import { printFields } from '../../output/table.js';
import { EMULATOR_DEFAULT_PORT, EMULATOR_HOST } from '../../settings/local-platform.js';
import {
  controlKeyOf,
  type DaemonState,
  daemonFiles,
  healthOf,
  probeEmulator,
  readDaemonState,
} from './daemon.js';

/**
 * The detached emulator if there is one (asked with the control key in its record), else whatever
 * emulator answers on the port (--port, default 4010): one started in the foreground too. One that
 * refuses the default key (started with --api-key) still says it is an emulator, and its pid.
 */
export async function runStatus(ctx: Context, opts: { port?: number } = {}): Promise<void> {
  const { io } = ctx;
  const record = readDaemonState(daemonFiles(ctx).state);
  const portOrigin = `http://${EMULATOR_HOST}:${opts.port ?? EMULATOR_DEFAULT_PORT}`;
  // The record's emulator, unless --port names another port.
  const state = record && (opts.port === undefined || record.port === opts.port) ? record : undefined;
  let origin = state?.origin ?? portOrigin;
  let probe = await probeEmulator(ctx, origin, controlKeyOf(state));
  if (state && !healthOf(probe)) {
    // The record's emulator is gone (or its port is someone else's): whatever answers on the port.
    const other = await probeEmulator(ctx, portOrigin, controlKeyOf(undefined));
    if (other) [origin, probe] = [portOrigin, other];
  }
  if (probe && 'refused' in probe) {
    if (probe.pid !== undefined) return reportKeyed(ctx, origin, probe.pid, state);
    throw new CommandFailedError(
      origin === state?.origin
        ? `the emulator recorded at ${origin} (pid ${state.pid}) is not answering (something else there refuses its key); start it again with aip emulator --detach`
        : `something at ${origin} refuses the default emulator key: an emulator started in the foreground with its own --api-key? (status finds detached emulators, and others that accept the default key)`,
    );
  }
  const health = probe?.health;
  if (!health) {
    throw new CommandFailedError(
      state
        ? `the emulator recorded at ${state.origin} (pid ${state.pid}) is not answering, nor is any on ${portOrigin}; start it again with aip emulator --detach`
        : `no emulator is running on ${portOrigin}: start one with aip emulator --detach${opts.port === undefined ? ' (or give the --port of one)' : ''}`,
    );
  }
  const status = {
    running: true,
    url: origin,
    pid: health.pid,
    detached: state?.pid === health.pid,
    uptime_s: health.uptime_s,
    requests: health.requests,
    log_file: state?.pid === health.pid ? state.log_file : null,
    state_dir: health.state_dir ?? null,
    store: health.store ?? null,
    counts: health.counts ?? null,
  };
  if (ctx.json) return io.json(status);
  if (io.quiet) return io.out(origin);
  printFields(io, [
    ['url', status.url],
    ['pid', `${status.pid}${status.detached ? ' (detached)' : ' (foreground)'}`],
    ['uptime', `${status.uptime_s}s`],
    ['requests', status.requests],
    [
      'state',
      status.state_dir
        ? `${status.state_dir}${status.store ? ` (SQLite through ${status.store})` : ''}`
        : 'in memory only (--ephemeral)',
    ],
    ...(status.counts
      ? [
          [
            'holds',
            Object.entries(status.counts)
              .map(([kind, n]) => `${n} ${kind}`)
              .join(', '),
          ] as [string, string],
        ]
      : []),
    ...(status.log_file ? [['log', status.log_file] as [string, string]] : []),
  ]);
}

/** An emulator that refuses the default key (its own --api-key): that it runs, where, and its pid. */
function reportKeyed(ctx: Context, origin: string, pid: number, state: DaemonState | undefined): void {
  const { io } = ctx;
  const detached = state?.pid === pid;
  const status = {
    running: true,
    url: origin,
    pid,
    detached,
    uptime_s: null,
    requests: null,
    log_file: detached ? state.log_file : null,
    state_dir: null,
    store: null,
    counts: null,
  };
  if (ctx.json) io.json(status);
  else if (io.quiet) io.out(origin);
  else
    printFields(io, [
      ['url', origin],
      ['pid', `${pid}${detached ? ' (detached)' : ' (foreground)'}`],
      ['state', 'not shown: it takes keys of its own (--api-key), not the default one'],
    ]);
}
