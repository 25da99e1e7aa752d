// Every JSON file aip keeps (the config, the local records of models and jobs this machine created) is
// written through conf: it writes a temporary file beside it, flushes it and renames it over the old
// one, so a crash (even kill -9) never leaves half a file, with mode 0600 whatever the mode was (the
// config may hold a key), in a directory made 0700 (src/fs/private-dir.ts). A symbolic link stays one:
// the file it points to is what is rewritten. A write that fails (a full disk, a quota, permissions, a
// read-only file system) is one line naming the file, exit 2, the old file as it was.
// A lock file around read → change → write keeps concurrent aip processes from losing each other's
// changes; it names its process, so that one left by a process that was killed is taken over at once,
// and under it, conf's temporary files that a killed process left are removed. conf is loaded here, on
// first write, and never on the read path; never while holding the lock either (see updateJsonFile).

import { closeSync, openSync, readdirSync, readFileSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { hostname, constants as osConstants } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { CliError } from '../errors/errors.js';
import { isProcessAlive, writeTarget } from '../fs/atomic-write.js';
import { ensurePrivateDir } from '../fs/private-dir.js';
import { removeFile } from '../fs/remove-file.js';
import { fsErrorCode, writeError } from '../fs/write-error.js';
import { type ConfigData, readConfigFile } from './config-file.js';

const LOCK_WAIT_MS = 10_000;
/** A lock older than this was left by a process that died (or hangs); it is taken over. */
const STALE_LOCK_MS = 30_000;
/** A lock with no owner written in it this long after it was made lost its maker in between. */
const EMPTY_LOCK_MS = 2_000;

const lockOwner = () => `${process.pid}@${hostname()}\n`;

/** Whether the lock (as `stat` found it) was left by a process that is gone. */
function isStale(lock: string, stat: { mtimeMs: number }): boolean {
  const age = Date.now() - stat.mtimeMs;
  if (age > STALE_LOCK_MS) return true;
  let owner: string;
  try {
    owner = readFileSync(lock, 'utf8');
  } catch {
    return false;
  }
  const m = /^(\d+)@(.*)\n$/.exec(owner);
  // No owner in it: its maker died between making and writing it (or it is an older aip's).
  if (!m) return age > EMPTY_LOCK_MS;
  // A process of another machine (a shared home directory) cannot be checked from here.
  const pid = Number(m[1]);
  return m[2] === hostname() && pid !== process.pid && !isProcessAlive(pid);
}

function tryLock(lock: string): boolean {
  let fd: number;
  try {
    fd = openSync(lock, 'wx', 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
  try {
    writeSync(fd, lockOwner());
  } catch (error) {
    removeFile(lock);
    throw error;
  } finally {
    closeSync(fd);
  }
  return true;
}

async function withLock<T>(file: string, work: () => Promise<T>): Promise<T> {
  const lock = `${file}.lock`;
  const deadline = Date.now() + LOCK_WAIT_MS;
  for (let wait = 5; !tryLock(lock); wait = Math.min(wait * 2, 100)) {
    try {
      const stat = statSync(lock);
      // Removed only if it is still the lock judged stale (not one made since by another process).
      if (isStale(lock, stat) && statSync(lock).ino === stat.ino) {
        removeFile(lock);
        continue;
      }
    } catch {
      // gone in the meantime: try again
    }
    if (Date.now() > deadline)
      throw new CliError(`${file} is locked by another aip process (${lock}); try again`);
    await new Promise((resolve) => setTimeout(resolve, wait));
  }
  try {
    return await work();
  } finally {
    // Ours still (it was not taken over as stale while we worked): removed.
    try {
      if (readFileSync(lock, 'utf8') === lockOwner()) unlinkSync(lock);
    } catch {
      // taken over and gone
    }
  }
}

/**
 * Under the lock no other aip process writes the file: a temporary file of conf's
 * (`config.json.tmp-<16 characters>`) was left by one that was killed while writing.
 */
function removeConfLeftovers(file: string): void {
  const name = basename(file);
  let names: string[];
  try {
    names = readdirSync(dirname(file));
  } catch {
    return;
  }
  for (const entry of names) {
    if (entry.startsWith(`${name}.tmp-`) && /^\d{10}[0-9a-f]{6}$/.test(entry.slice(name.length + 5)))
      removeFile(join(dirname(file), entry));
  }
}

/**
 * Reads the file with `read` (which validates it: a corrupt file is reported, never overwritten), lets
 * `mutate` change the data, and writes it back, unless `mutate` returns false (nothing to change: no
 * file is created or rewritten). Resolves to whether it wrote.
 *
 * `mutate` may be called twice, each time on the file as read then: the first write of a process finds
 * conf not loaded, lets the lock go, loads it, and starts again. Loading conf takes ~170 ms of CPU (most
 * of a `config set`), and seconds on a busy machine: held under the lock, it queued every other writer
 * behind it (20 processes setting the config at once on a busy machine went past LOCK_WAIT_MS).
 */
export async function updateJsonFile<T extends object>(
  file: string,
  read: (file: string) => T,
  mutate: (data: T) => unknown,
): Promise<boolean> {
  try {
    // aip's own directory: made 0700, or made 0700 again (src/fs/private-dir.ts).
    ensurePrivateDir(dirname(file));
    for (;;) {
      const wrote = await withLock(file, () => writeUnderLock(file, read, mutate));
      if (wrote !== NEEDS_CONF) return wrote;
      await loadConf();
    }
  } catch (error) {
    // A directory that cannot be made or written (a file in the way, a read-only disk, a full one):
    // said in one line, exit 2 (nothing was changed: fix it and run the same command again); the old
    // file, if any, is as it was (conf writes a temporary file, removed when the write fails, and
    // renames it over the old one).
    throw writeError(file, error, {
      advice:
        fsErrorCode(error) === 'EROFS'
          ? 'set AIP_CONFIG_DIR to a directory on a writable file system'
          : undefined,
    });
  }
}

let conf: ReturnType<typeof importConf> | undefined;
/** conf once loadConf() has loaded it. */
let loadedConf: Awaited<ReturnType<typeof importConf>> | undefined;

/** conf, imported once: its signal handlers (see importConf) are added only by that first import. */
function loadConf() {
  conf ??= importConf().then((Conf) => {
    loadedConf = Conf;
    return Conf;
  });
  return conf;
}

/** What writeUnderLock answers when it would write but conf is not loaded yet. */
const NEEDS_CONF = Symbol('needs conf');

/**
 * conf, without the signal handlers it brings: its writer (atomically) loads when-exit, which on
 * SIGINT, SIGTERM and the like re-raises the signal to end the process. Once a command had written a
 * local record (jobs create --wait, train rl), Ctrl-C would then kill it instead of letting it stop
 * cleanly (ctx.interruptible: say how to resume, exit 130). Its handlers are taken off as it loads;
 * the temporary files it cleans up on exit are cleaned by its 'exit' hook, which stays. (Taken off
 * as whatever was added while it loaded: nothing else runs a command then.)
 */
async function importConf() {
  const signals = Object.keys(osConstants.signals) as NodeJS.Signals[];
  const before = new Map(signals.map((s) => [s, new Set(process.listeners(s))]));
  const { default: Conf } = await import('conf');
  for (const s of signals)
    for (const listener of process.listeners(s))
      if (!before.get(s)!.has(listener)) process.off(s, listener as () => void);
  return Conf;
}

async function writeUnderLock<T extends object>(
  file: string,
  read: (file: string) => T,
  mutate: (data: T) => unknown,
): Promise<boolean | typeof NEEDS_CONF> {
  const data = read(file);
  if (mutate(data) === false) return false;
  const Conf = loadedConf;
  if (!Conf) return NEEDS_CONF;
  // A link (a config kept with one's dotfiles) stays a link: the file at its end is rewritten, its
  // temporary file made beside it. A link to nothing yet makes that file, in a directory that must
  // exist (conf would make it; a directory of the user's is not aip's to make).
  const target = writeTarget(file, true);
  if (target !== file) statSync(dirname(target));
  removeConfLeftovers(target);
  // conf writes in place, not atomically, when SNAP is set (as it is for a Node installed as a snap):
  // hidden from it while it writes (synchronously: nothing else runs meanwhile).
  const snap = process.env.SNAP;
  delete process.env.SNAP;
  try {
    const store = new Conf<Record<string, unknown>>({
      cwd: dirname(target),
      configName: basename(target),
      fileExtension: '',
      projectName: 'aip',
      projectSuffix: '',
      configFileMode: 0o600,
      accessPropertiesByDotNotation: false,
      clearInvalidConfig: false,
    });
    store.store = data as Record<string, unknown>;
  } finally {
    if (snap !== undefined) process.env.SNAP = snap;
  }
  return true;
}

export function updateConfig(file: string, mutate: (data: ConfigData) => unknown): Promise<boolean> {
  return updateJsonFile(file, readConfigFile, mutate);
}
