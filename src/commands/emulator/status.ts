import type { Context } from '../../context.js';
import { EMULATOR_DEFAULT_PORT, EMULATOR_HOST } from '../../emulator/defaults.js';
import { CommandFailedError } from '../../errors.js';
import { printFields } from '../../output/table.js';
import { daemonFiles, probeEmulator, readDaemonState } from './daemon.js';

/** The detached emulator if there is one, else whatever emulator answers on the default port. */
export async function runStatus(ctx: Context): Promise<void> {
  const { io } = ctx;
  const state = readDaemonState(daemonFiles(ctx).state);
  const origin = state?.origin ?? `http://${EMULATOR_HOST}:${EMULATOR_DEFAULT_PORT}`;
  const health = await probeEmulator(ctx, origin);
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
  };
  if (ctx.json) return io.json(status);
  if (io.quiet) return io.out(origin);
  printFields(io, [
    ['url', status.url],
    ['pid', `${status.pid}${status.detached ? ' (detached)' : ' (foreground)'}`],
    ['uptime', `${status.uptime_s}s`],
    ['requests', status.requests],
    ...(status.log_file ? [['log', status.log_file] as [string, string]] : []),
  ]);
}
