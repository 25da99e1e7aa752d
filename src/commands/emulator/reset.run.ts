// `aip emulator reset`: empties the emulator's state (models, checkpoints, jobs and their events,
// logged trajectories, spans, the request record), after asking. A running emulator is told to
// (through its control route, with the key of its record); with none running, the state directory is
// opened and emptied in place (its lock refuses this while another emulator has it).

import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Context } from '../../context.js';
import { DB_FILE, EmulatorState, openSqlitePersistence, SQLITE_CHOICE_ENV } from '../../emulator/index.js';
import { CliError } from '../../errors/errors.js';
import { EMULATOR_DEFAULT_PORT, EMULATOR_HOST } from '../../settings/local-platform.js';
import { confirmDestructive } from '../confirm.js';
import { controlKeyOf, daemonFiles, healthOf, probeEmulator, readDaemonState } from './daemon.js';
import type { ResetOptions } from './reset.js';
import { stateDirOf } from './start.run.js';

export async function runReset(ctx: Context, opts: ResetOptions): Promise<void> {
  const { io } = ctx;
  const record = readDaemonState(daemonFiles(ctx).state);
  const origin = record?.origin ?? `http://${EMULATOR_HOST}:${EMULATOR_DEFAULT_PORT}`;
  const key = controlKeyOf(record);
  const running = healthOf(await probeEmulator(ctx, origin, key));
  const dir = stateDirOf(ctx, { stateDir: opts.stateDir });
  // A running emulator on another directory than the one named is not the one to empty.
  const live = running && (opts.stateDir === undefined || running.state_dir === dir) ? running : undefined;
  if (!live && !existsSync(join(dir!, DB_FILE))) {
    io.info(`There is no emulator state in ${dir}: nothing to empty`);
    return;
  }
  const where = live ? `the emulator at ${origin}${live.state_dir ? ` (${live.state_dir})` : ''}` : dir;
  await confirmDestructive(
    ctx,
    `Empty ${where}: every model, checkpoint, job, logged trajectory, span and recorded request?`,
    'empty the emulator',
  );
  if (live) {
    const res = await ctx.deps.transport({
      method: 'POST',
      url: `${origin}/_emulator/reset`,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: '{}',
      signal: AbortSignal.timeout(10_000),
    });
    if (res.status !== 200)
      throw new CliError(`the emulator at ${origin} refused to reset (HTTP ${res.status})`);
  } else {
    // The durable store, opened only here (this file loads when `emulator reset` runs): its SQLite
    // binding is loaded on open, not with the emulator's entry.
    const persistence = openSqlitePersistence(dir!, { sqlite: ctx.env[SQLITE_CHOICE_ENV] });
    try {
      const state = new EmulatorState([], { persistence });
      state.reset();
      state.requests.clear();
    } finally {
      persistence.close();
    }
  }
  io.info(`Emptied ${where}`);
}
