// Who has a state directory open: its owner file, `pid@host` and, on Linux, when that process started.
// Every emulator takes it before it opens the database, whatever its SQLite binding, so that two
// emulators never share a directory, even one on node:sqlite (which also has the operating system's
// lock) and one on the WebAssembly build (which has no lock a killed process lets go of).
//
// A record whose process is gone is no one's: a process killed with the directory open (kill -9, a
// crash, a power cut) leaves its record behind, and the next emulator takes the directory over at once.
// Gone means: on this machine, no process has that pid, or (Linux) the one that has it started at
// another time, so a reused pid is not mistaken for the owner; or it is this very process, which does
// not hold the directory (a container restarted, its emulator pid 1 again). A record from another
// machine (a directory on a shared mount, a container volume under a new hostname) cannot be checked:
// a binding with the operating system's lock lets that lock decide, the WebAssembly one refuses.
//
// The record is written whole before it is visible (a file of its own, linked into place, which fails
// if the name exists), so a reader never sees half of one.

import { randomBytes } from 'node:crypto';
import {
  closeSync,
  linkSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { hostname } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { CliError } from '../errors/errors.js';
import { isProcessAlive } from './atomic-write.js';
import { removeFile } from './remove-file.js';

export const OWNER_FILE = 'owner';
/** Names of the owner file's moments in passing (being written, being taken over). */
export const OWNER_PASSING = /^owner\.(new|stale)-(\d+)-[0-9a-f]+$/;

/** The owner files this process holds: a second emulator in the same process is refused too. */
const held = new Set<string>();

export interface Owner {
  /** As the refusal names it: `pid@host`. */
  label: string;
  pid: number;
  host: string;
  started?: string;
}

export type OwnerClaim =
  | { held: OwnerLock }
  /** Another emulator has it; `elsewhere`: on another machine, so whether it still runs is unknown. */
  | { busy: Owner; elsewhere: boolean };

export interface OwnerLock {
  /** Gives the directory up (the emulator stops). */
  release(): void;
  /**
   * Gives it up when opening failed: a record from another machine that this one replaced is put
   * back, since the operating system's lock has just said its emulator may well be running.
   */
  giveBack(): void;
}

/** When a process started, in clock ticks since boot (Linux only): a pid with another start is another process. */
function startOf(pid: number): string | undefined {
  if (process.platform !== 'linux') return undefined;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Field 22, counted after the command name (which may hold spaces) closes at field 2.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}

function ownRecord(): string {
  const started = startOf(process.pid);
  return `${process.pid}@${hostname()}\n${started ? `started ${started}\n` : ''}`;
}

function parse(text: string): Owner | undefined {
  const [label = '', second = ''] = text.split('\n');
  const match = /^(\d+)@(.*)$/.exec(label);
  if (!match) return undefined;
  const started = /^started (\d+)$/.exec(second)?.[1];
  return { label, pid: Number(match[1]), host: match[2]!, ...(started ? { started } : {}) };
}

type Verdict = 'running' | 'gone' | 'elsewhere';

function verdictOn(owner: Owner | undefined, file: string): Verdict {
  // Unreadable as a record: not one of ours (ours are written whole), so no one's.
  if (!owner) return 'gone';
  if (owner.host !== hostname()) return 'elsewhere';
  if (owner.pid === process.pid) return held.has(file) ? 'running' : 'gone';
  if (!isProcessAlive(owner.pid)) return 'gone';
  const started = owner.started && startOf(owner.pid);
  return started && started !== owner.started ? 'gone' : 'running';
}

function readOrUndefined(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

function passingName(file: string, what: 'new' | 'stale'): string {
  return `${file}.${what}-${process.pid}-${randomBytes(4).toString('hex')}`;
}

/** Puts the record in place unless there is one already (false then). */
function create(file: string, record: string): boolean {
  const draft = passingName(file, 'new');
  writeFileSync(draft, record, { mode: 0o600 });
  try {
    linkSync(draft, file);
    return true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return false;
    // A file system without hard links (FAT, some network mounts): created exclusively, then written.
    if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'ENOSYS') throw error;
    let fd: number;
    try {
      fd = openSync(file, 'wx', 0o600);
    } catch (inner) {
      if ((inner as NodeJS.ErrnoException).code === 'EEXIST') return false;
      throw inner;
    }
    try {
      writeSync(fd, record);
    } finally {
      closeSync(fd);
    }
    return true;
  } finally {
    removeFile(draft);
  }
}

/**
 * Moves aside the record `seen` (true once it is out of the way). A record that is no longer it
 * (another emulator took the directory over meanwhile) is put back, and false says to look again.
 */
function takeOver(file: string, seen: string): boolean {
  const aside = passingName(file, 'stale');
  try {
    renameSync(file, aside);
  } catch {
    return false; // gone meanwhile: look again
  }
  const moved = readOrUndefined(aside);
  if (moved === seen) {
    removeFile(aside);
    return true;
  }
  try {
    renameSync(aside, file);
  } catch {
    // Yet another record in its place (Windows does not rename over one): the one moved aside goes.
    removeFile(aside);
  }
  return false;
}

/** Records left in passing by a process killed at that moment: the holder of the directory clears them. */
function clearPassing(dir: string): void {
  for (const name of readdirSync(dir)) {
    const pid = Number(OWNER_PASSING.exec(name)?.[2]);
    if (pid && pid !== process.pid && !isProcessAlive(pid)) removeFile(join(dir, name));
  }
}

/** Whoever the owner file names, for a refusal that comes from the database's own lock. */
export function ownerOf(dir: string): Owner | undefined {
  return parse(readOrUndefined(join(dir, OWNER_FILE)) ?? '');
}

/**
 * Takes the directory for this process, or says who has it. `elsewhere`: what to do with a record from
 * another machine, `take` it (the binding's own operating-system lock decides next) or leave it.
 */
export function claimOwner(dir: string, { elsewhere }: { elsewhere: 'take' | 'leave' }): OwnerClaim {
  const file = join(resolve(dir), OWNER_FILE);
  const record = ownRecord();
  let replaced: string | undefined;
  for (let attempt = 0; attempt < 5; attempt++) {
    if (create(file, record)) {
      held.add(file);
      clearPassing(dir);
      return { held: ownerLock(file, () => replaced) };
    }
    const seen = readOrUndefined(file);
    if (seen === undefined) continue; // let go meanwhile
    const owner = parse(seen);
    const verdict = verdictOn(owner, file);
    if (verdict === 'running' || (verdict === 'elsewhere' && elsewhere === 'leave'))
      return { busy: owner!, elsewhere: verdict === 'elsewhere' };
    if (takeOver(file, seen) && verdict === 'elsewhere') replaced = seen;
  }
  // Five turns lost to others taking it over: it is theirs.
  const owner = parse(readOrUndefined(file) ?? '');
  return { busy: owner ?? { label: 'unknown', pid: 0, host: '' }, elsewhere: false };
}

function ownerLock(file: string, replaced: () => string | undefined): OwnerLock {
  const release = () => {
    if (!held.delete(file)) return;
    removeFile(file);
  };
  return {
    release,
    giveBack() {
      const previous = replaced();
      release();
      if (previous !== undefined) create(file, previous);
    },
  };
}

/** How often a waiting claim looks again. */
const CLAIM_POLL_MS = 20;

/**
 * Takes `dir` for a short use (a fold, a read), waiting up to `waitMs` for another process's use of it
 * to end; then a CliError naming `what` ("the history") and who has it. `osLock`: the SQLite binding
 * locks the database itself, so a record from another machine may be taken (its lock decides next).
 */
export async function claimOwnerWaiting(
  dir: string,
  options: { osLock: boolean; waitMs: number; what: string },
): Promise<OwnerLock> {
  const until = Date.now() + options.waitMs;
  for (;;) {
    const claimed = claimOwner(dir, { elsewhere: options.osLock ? 'take' : 'leave' });
    if ('held' in claimed) return claimed.held;
    if (Date.now() >= until) {
      const where = claimed.elsewhere
        ? `, on another machine (if it no longer runs there, remove ${join(dir, OWNER_FILE)})`
        : '';
      throw new CliError(
        `${options.what} ${dir} is in use by another aip (pid ${claimed.busy.label}${where}); try again when it ends`,
      );
    }
    await delay(CLAIM_POLL_MS);
  }
}
