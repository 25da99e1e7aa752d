// `aip emulator`: in the foreground, serve until Ctrl-C or SIGTERM; with --detach, start a copy of
// this command in the background, wait until it listens, record where it is, and return.

import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, existsSync, openSync, readFileSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Context } from '../../context.js';
import {
  defaultStateDir,
  type RunningEmulator,
  SQLITE_CHOICE_ENV,
  seedDemo,
  startEmulator,
} from '../../emulator/index.js';
import { CliError, UsageError } from '../../errors/errors.js';
import { ensurePrivateDir } from '../../fs/private-dir.js';
import { removeFile } from '../../fs/remove-file.js';
import { fsErrorCode, writeError } from '../../fs/write-error.js';
import { aipScript } from '../../lib/package-root.js';
import { printFields } from '../../output/table.js';
import { EMULATOR_DEFAULT_KEY, EMULATOR_DEFAULT_PORT } from '../../settings/local-platform.js';
import {
  controlKeyOf,
  type DaemonState,
  daemonFiles,
  healthOf,
  probeEmulator,
  readDaemonState,
  writeDaemonState,
} from './daemon.js';
import { rememberDemo } from './remember-demo.js';
import type { EmulatorStartOptions } from './start.js';

/**
 * Set on the detached child: report readiness over IPC; keys come from the environment, not argv (which
 * any user of the machine can read), the key of its control routes too (daemon.ts).
 */
const NOTIFY_ENV = 'AIP_EMULATOR_NOTIFY';
const KEYS_ENV = 'AIP_EMULATOR_KEYS';
const CONTROL_KEY_ENV = 'AIP_EMULATOR_CONTROL_KEY';
const START_TIMEOUT_MS = 15_000;

function apiKeys(ctx: Context, opts: EmulatorStartOptions): string[] {
  if (opts.apiKey?.length) return opts.apiKey;
  const fromEnv = ctx.env[KEYS_ENV]?.split('\n').filter(Boolean);
  return fromEnv?.length ? fromEnv : [EMULATOR_DEFAULT_KEY];
}

/** The state directory: --state-dir, else aip's data directory; none with --ephemeral. */
export function stateDirOf(
  ctx: Context,
  opts: Pick<EmulatorStartOptions, 'stateDir' | 'ephemeral'>,
): string | undefined {
  if (opts.ephemeral && opts.stateDir !== undefined)
    throw new UsageError('give --ephemeral (state in memory only) or --state-dir, not both');
  if (opts.ephemeral) return undefined;
  return opts.stateDir !== undefined ? resolve(opts.stateDir) : defaultStateDir(ctx.env);
}

async function listen(ctx: Context, opts: EmulatorStartOptions, keys: string[]): Promise<RunningEmulator> {
  const { io } = ctx;
  const { port } = opts;
  const controlKey = ctx.env[CONTROL_KEY_ENV];
  try {
    const emu = await startEmulator({
      port,
      apiKeys: keys,
      controlKeys: controlKey ? [controlKey] : [],
      stepMs: opts.stepMs,
      tokenMs: opts.tokenMs,
      unstreamedTokenMs: opts.unstreamedTokenMs,
      seed: opts.seed,
      trainingChatStream: opts.trainingChatStream,
      stateDir: stateDirOf(ctx, opts),
      sqlite: ctx.env[SQLITE_CHOICE_ENV],
      log: io.quiet ? undefined : (line) => io.err(line),
    });
    if (opts.demo) {
      if (seedDemo(emu.state)) io.info('Seeded the demo: model local/demo/demo-agent, a finished job, spans');
      await rememberDemoOrWarn(ctx, emu);
    }
    return emu;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') {
      throw new CliError(
        `port ${port} on 127.0.0.1 is already in use: is an emulator running (aip emulator status)? Or pick another with --port`,
      );
    }
    throw error;
  }
}

/** The demo's names remembered on this machine; the emulator serves without them if they cannot be. */
async function rememberDemoOrWarn(ctx: Context, emu: RunningEmulator): Promise<void> {
  try {
    await rememberDemo(ctx, emu);
  } catch (error) {
    ctx.io.warn(
      `the demo's model and job could not be remembered, so only their ids name them: ${(error as Error).message}`,
    );
  }
}

/** Where to reach it, on stderr (--quiet drops it): stdout stays free for results. */
function printBanner(ctx: Context, emu: RunningEmulator, keys: string[]): void {
  const { io } = ctx;
  io.info(`aip emulator listening on ${emu.origin}`);
  io.info(`  training API   ${emu.urls.base}`);
  io.info(`  inference API  ${emu.urls.inference}`);
  io.info(`  trace ingest   ${emu.urls.trace}`);
  io.info(`  API key${keys.length > 1 ? 's ' : '  '}       ${keys.join(', ')}`);
  const { dir, driver } = emu.state.persistence;
  const counts = emu.state.counts();
  io.info(
    dir
      ? `  state          ${dir} (${counts.models} models, ${counts.jobs} jobs, ${counts.spans} spans; SQLite through ${driver})`
      : '  state          in memory only (--ephemeral): gone when it stops',
  );
  if (emu.port === EMULATOR_DEFAULT_PORT)
    io.info('Use it with: aip --profile local health   (Ctrl-C stops the emulator)');
  else {
    io.info('Use it with (Ctrl-C stops the emulator):');
    io.info(
      `  export AIP_BASE_URL=${emu.urls.base} AIP_INFERENCE_URL=${emu.urls.inference} AIP_TRACE_URL=${emu.urls.trace}`,
    );
  }
}

async function runForeground(ctx: Context, opts: EmulatorStartOptions): Promise<void> {
  const keys = apiKeys(ctx, opts);
  const emu = await listen(ctx, opts, keys);
  // What the state directory's check found worth a warning (writable by others), said once: here, or
  // by the command that detached this one.
  const notes = emu.state.persistence.notes ?? [];
  if (ctx.env[NOTIFY_ENV] === '1' && process.send) {
    process.send({ type: 'ready', port: emu.port, origin: emu.origin, notes });
  } else {
    printBanner(ctx, emu, keys);
    for (const note of notes) ctx.io.warn(note);
  }
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await emu.close();
}

function lastLogLine(file: string): string {
  try {
    const lines = readFileSync(file, 'utf8').trim().split('\n');
    return lines[lines.length - 1]?.replace(/^error:\s*/, '') ?? '';
  } catch {
    return '';
  }
}

async function runDetached(ctx: Context, opts: EmulatorStartOptions): Promise<void> {
  const files = daemonFiles(ctx);
  const existing = readDaemonState(files.state);
  const running = existing && healthOf(await probeEmulator(ctx, existing.origin, controlKeyOf(existing)));
  if (existing && running?.pid === existing.pid) {
    report(ctx, existing, `already running (pid ${existing.pid})`);
    return;
  }
  // aip's own directory, 0700 (src/fs/private-dir.ts); the log is appended to, made 0600.
  const logExisted = existsSync(files.log);
  let log: number;
  try {
    ensurePrivateDir(files.dir);
    log = openSync(files.log, 'a', 0o600);
  } catch (error) {
    const denied = ['EACCES', 'EPERM'].includes(fsErrorCode(error) ?? '');
    throw writeError(files.log, error, {
      advice: denied ? `check the permissions of ${files.log} and of its directory` : undefined,
      outcome: 'the emulator was not started',
    });
  }
  // --ci none: its log is a file, which no runner reads; its lines, quoted in an error here, must not
  // carry workflow commands of their own.
  const args = [aipScript(), 'emulator', '--port', String(opts.port), '--no-color', '--ci', 'none'];
  if (opts.stepMs !== undefined) args.push('--step-ms', String(opts.stepMs));
  if (opts.seed !== undefined) args.push('--seed', String(opts.seed));
  if (opts.tokenMs !== undefined) args.push('--token-ms', String(opts.tokenMs));
  if (opts.unstreamedTokenMs !== undefined)
    args.push('--unstreamed-token-ms', String(opts.unstreamedTokenMs));
  if (opts.trainingChatStream) args.push('--training-chat-stream');
  // The child's state directory, resolved here: the child may not share this one's idea of it.
  const stateDir = stateDirOf(ctx, opts);
  args.push(...(stateDir ? ['--state-dir', stateDir] : ['--ephemeral']));
  if (opts.demo) args.push('--demo');
  const controlKey = `aip-emulator-control-${randomBytes(24).toString('base64url')}`;
  const child = spawn(process.execPath, args, {
    detached: true,
    stdio: ['ignore', log, log, 'ipc'],
    env: {
      ...ctx.env,
      [NOTIFY_ENV]: '1',
      [KEYS_ENV]: apiKeys(ctx, opts).join('\n'),
      [CONTROL_KEY_ENV]: controlKey,
    },
  });
  closeSync(log);
  const ready = await new Promise<{ port: number; origin: string; notes?: string[] }>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill();
      reject(new CliError(`the emulator did not start within ${START_TIMEOUT_MS / 1000}s; see ${files.log}`));
    }, START_TIMEOUT_MS);
    child.once('message', (message) => {
      clearTimeout(timer);
      resolve(message as { port: number; origin: string; notes?: string[] });
    });
    child.once('exit', () => {
      clearTimeout(timer);
      reject(new CliError(`the emulator did not start: ${lastLogLine(files.log) || `see ${files.log}`}`));
    });
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(new CliError(`could not start the emulator: ${error.message}`));
    });
  });
  child.removeAllListeners('exit');
  child.removeAllListeners('error');
  child.disconnect();
  child.unref();
  const state: DaemonState = {
    pid: child.pid!,
    port: ready.port,
    origin: ready.origin,
    log_file: files.log,
    started_at: new Date().toISOString(),
    control_key: controlKey,
  };
  try {
    writeDaemonState(files.state, state);
  } catch (error) {
    // Without its record the emulator could be neither found nor stopped by aip: it goes too, and
    // what this run made with it (an empty log), so that the directory is as it was. Exit 2.
    await stopChild(child);
    if (!logExisted) rmEmpty(files.log);
    throw writeError(files.state, error, { outcome: 'the emulator was stopped' });
  }
  report(ctx, state, `started in the background (pid ${state.pid}); stop it with: aip emulator stop`);
  for (const note of ready.notes ?? []) if (typeof note === 'string') ctx.io.warn(note);
}

/** SIGTERM, and its end waited for (at most a few seconds): its port is free again. */
async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([exited, new Promise<void>((resolve) => (timer = setTimeout(resolve, 5_000)))]);
  clearTimeout(timer);
}

function rmEmpty(file: string): void {
  try {
    if (statSync(file).size === 0) removeFile(file);
  } catch {
    // gone, or cannot be removed either
  }
}

/** Where it is; the control key stays in the record. */
function report(ctx: Context, { control_key: _, ...state }: DaemonState, what: string): void {
  const { io } = ctx;
  if (ctx.json) io.json(state);
  else if (io.quiet) io.out(state.origin);
  else {
    printFields(io, [
      ['url', state.origin],
      ['pid', state.pid],
      ['log', state.log_file],
    ]);
  }
  io.info(`Emulator ${what}`);
}

export async function runEmulator(ctx: Context, opts: EmulatorStartOptions): Promise<void> {
  if (opts.detach) await runDetached(ctx, opts);
  else await runForeground(ctx, opts);
}
