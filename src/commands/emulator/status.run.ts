import type { Context } from '../../context.js';
import { CommandFailedError } from '../../errors/errors.js';
import { printFields } from '../../output/table.js';
import { EMULATOR_DEFAULT_PORT, EMULATOR_HOST } from '../../settings/local-platform.js';
import { controlKeyOf, daemonFiles, probeEmulator, readDaemonState } from './daemon.js';

/**
 * The detached emulator if there is one (asked with the control key in its record), else whatever
 * emulator answers on the default port and accepts the default key (daemon.ts).
 */
export async function runStatus(ctx: Context): Promise<void> {
  const { io } = ctx;
  const state = readDaemonState(daemonFiles(ctx).state);
  const origin = state?.origin ?? `http://${EMULATOR_HOST}:${EMULATOR_DEFAULT_PORT}`;
  const probe = await probeEmulator(ctx, origin, controlKeyOf(state));
  if (probe && 'refused' in probe) {
    throw new CommandFailedError(
      state
        ? `the emulator recorded at ${origin} (pid ${state.pid}) is not answering (something else there refuses its key); start it again with aip emulator --detach`
        : `something at ${origin} refuses the default emulator key: an emulator started in the foreground with its own --api-key? (status finds detached emulators, and others that accept the default key)`,
    );
  }
  const health = probe?.health;
  if (!health) {
    throw new CommandFailedError(
      state
        ? `the emulator recorded at ${origin} (pid ${state.pid}) is not answering; start it again with aip emulator --detach`
        : 'no emulator is running: start one with aip emulator --detach',
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
