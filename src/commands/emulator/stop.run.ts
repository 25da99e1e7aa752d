import type { Context } from '../../context.js';
import { CliError } from '../../errors/errors.js';
import { writeError } from '../../fs/write-error.js';
import {
  controlKeyOf,
  daemonFiles,
  healthOf,
  isProcessAlive,
  probeEmulator,
  readDaemonState,
  removeDaemonState,
} from './daemon.js';

const STOP_TIMEOUT_MS = 5_000;

/**
 * The record forgotten; where it cannot be (a read-only file system, say), a warning that names it:
 * the emulator is stopped all the same, and the next command finds the record stale.
 */
function forgetRecord(ctx: Context, file: string): void {
  try {
    removeDaemonState(file);
  } catch (error) {
    const failure = writeError(file, error);
    if (!(failure instanceof CliError)) throw failure;
    ctx.io.warn(
      `${failure.message.replace(/^cannot write/, 'cannot remove')}; it is stale, and can be deleted`,
    );
  }
}

export async function runStop(ctx: Context): Promise<void> {
  const { io } = ctx;
  const files = daemonFiles(ctx);
  const state = readDaemonState(files.state);
  if (!state) {
    io.info('No detached emulator is running');
    return;
  }
  // Signal only a process that proves to be the emulator we started (it knows the record's control
  // key and names the record's pid): pids get reused, ports too.
  const health = healthOf(await probeEmulator(ctx, state.origin, controlKeyOf(state)));
  if (health?.pid !== state.pid) {
    forgetRecord(ctx, files.state);
    io.info(`No detached emulator is running (removed the stale record of pid ${state.pid})`);
    return;
  }
  try {
    process.kill(state.pid, 'SIGTERM');
  } catch (error) {
    // It exited between the check and the signal: stopped all the same.
    if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
  }
  const deadline = Date.now() + STOP_TIMEOUT_MS;
  while (isProcessAlive(state.pid) && Date.now() < deadline) await ctx.deps.sleep(50);
  if (isProcessAlive(state.pid))
    throw new CliError(`the emulator (pid ${state.pid}) did not stop within ${STOP_TIMEOUT_MS / 1000}s`);
  forgetRecord(ctx, files.state);
  io.info(`Stopped the emulator at ${state.origin} (pid ${state.pid})`);
}
