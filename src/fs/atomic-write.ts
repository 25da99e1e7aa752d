// Every file aip writes whole (the config and the registries, chat transcripts, the detached emulator's
// record, `traces generate -o`) is written here: to a temporary file beside it, flushed to the disk,
// then renamed over it. A reader, or a process killed at any point (kill -9, a power cut after the
// rename), sees the old file or the new one, never a torn or empty one.
//
// A process killed while writing cannot remove its temporary file, so the name carries its pid
// (`.<name>.aip-<pid>-<random>.tmp`), and the next write of the same file removes those whose process
// is gone. Nothing is scanned at start-up: only the directory of a file being written, when it is.

import { createHash } from 'node:crypto';
import {
  closeSync,
  fchmodSync,
  fchownSync,
  fsyncSync,
  lstatSync,
  openSync,
  readdirSync,
  readlinkSync,
  realpathSync,
  renameSync,
  type Stats,
  statSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';

export interface AtomicWriteOptions {
  /**
   * The file's mode, whatever it was before (the config: 0600). Without it an existing file keeps its
   * mode and a new one gets 0666 less the umask, as a plain write would give it.
   */
  mode?: number;
  /**
   * Write to the file a symbolic link points to, keeping the link (as a plain write does), instead of
   * replacing the link with a file of its own.
   */
  followSymlinks?: boolean;
}

/** A file being written: write to `fd`, then commit() (it becomes the file) or abort() (it goes). */
export interface AtomicFile {
  readonly fd: number;
  /** Where the new content goes until commit(): the temporary file, or the file itself. */
  readonly path: string;
  commit(): void;
  abort(): void;
}

/** Whether a process of this pid is running (as far as this user can tell). */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The start of the temporary names of `file`; a long name is hashed, to stay under 255 bytes. */
function tempStem(file: string): string {
  const name = basename(file);
  const short =
    Buffer.byteLength(name) <= 160 ? name : createHash('sha256').update(name).digest('hex').slice(0, 16);
  return `.${short}.aip-`;
}
const TEMP_TAIL = /^(\d+)-[0-9a-f]{8}\.tmp$/;

function tempName(file: string): string {
  const random = Math.floor(Math.random() * 0x1_0000_0000)
    .toString(16)
    .padStart(8, '0');
  return join(dirname(file), `${tempStem(file)}${process.pid}-${random}.tmp`);
}

/**
 * Removes the temporary files that writers of `file` left when they were killed (those of live
 * processes stay: they are still writing). Never throws: a leftover that cannot go stays.
 */
export function removeStaleTemps(file: string): void {
  const stem = tempStem(file);
  let names: string[];
  try {
    names = readdirSync(dirname(file));
  } catch {
    return;
  }
  for (const name of names) {
    if (!name.startsWith(stem)) continue;
    const pid = Number(TEMP_TAIL.exec(name.slice(stem.length))?.[1]);
    if (!pid || pid === process.pid || isProcessAlive(pid)) continue;
    try {
      unlinkSync(join(dirname(file), name));
    } catch {
      // gone already, or not ours to remove
    }
  }
}

function statOrUndefined(stat: (path: string) => Stats, path: string): Stats | undefined {
  try {
    return stat(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/** The path to replace: the file, or with followSymlinks what its link points to. */
function target(file: string, followSymlinks: boolean): string {
  if (!followSymlinks || !statOrUndefined(lstatSync, file)?.isSymbolicLink()) return file;
  try {
    return realpathSync(file);
  } catch {
    // A link to nothing yet: the file is made where it points, as a plain write would make it.
    return resolve(dirname(file), readlinkSync(file));
  }
}

/** fsync of the directory, so that the rename itself survives a power cut (where the OS allows it). */
function syncDirectory(dir: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(dir, 'r');
    fsyncSync(fd);
  } catch {
    // not supported here (Windows, some file systems): the rename is still atomic
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/**
 * rename(2). On Windows a file another process has open cannot be replaced for a moment (an
 * antivirus scan, another aip reading the config): a few tries, as conf's writer made.
 */
function renameOver(from: string, to: string): void {
  for (let attempt = 1; ; attempt++) {
    try {
      renameSync(from, to);
      return;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? '';
      if (process.platform !== 'win32' || attempt >= 20 || !['EPERM', 'EACCES', 'EBUSY'].includes(code))
        throw error;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 25);
    }
  }
}

/**
 * Opens `file` for an atomic rewrite. Something that is not a regular file (/dev/null, /dev/stdout, a
 * named pipe) cannot be replaced: it is written in place, as a plain write would.
 */
export function openAtomic(file: string, options: AtomicWriteOptions = {}): AtomicFile {
  const path = target(file, options.followSymlinks ?? false);
  const existing = statOrUndefined(statSync, path);
  if (existing && !existing.isFile()) {
    const fd = openSync(path, 'w');
    let open = true;
    const close = () => {
      if (open) closeSync(fd);
      open = false;
    };
    return { fd, path, commit: close, abort: close };
  }
  removeStaleTemps(path);
  const temp = tempName(path);
  // Private while it is written; given its final mode before it takes the file's place.
  const fd = openSync(temp, 'wx', options.mode ?? (existing ? 0o600 : 0o666));
  let open = true;
  const close = () => {
    if (open) closeSync(fd);
    open = false;
  };
  const abort = () => {
    try {
      close();
    } finally {
      try {
        unlinkSync(temp);
      } catch {
        // not there (renamed already)
      }
    }
  };
  const commit = () => {
    try {
      const mode = options.mode ?? (existing ? existing.mode & 0o7777 : undefined);
      if (mode !== undefined) fchmodSync(fd, mode);
      // root rewriting someone else's file leaves it theirs, as a plain write would.
      if (existing && process.getuid?.() === 0 && (existing.uid !== 0 || existing.gid !== 0))
        fchownSync(fd, existing.uid, existing.gid);
      fsyncSync(fd);
      close();
      renameOver(temp, path);
    } catch (error) {
      abort();
      throw error;
    }
    syncDirectory(dirname(path));
  };
  return { fd, path: temp, commit, abort };
}

/** Writes all of `data` at the file's current position. */
export function writeAll(fd: number, data: string | Uint8Array): void {
  const bytes = typeof data === 'string' ? Buffer.from(data) : data;
  for (let at = 0; at < bytes.length; ) at += writeSync(fd, bytes, at, bytes.length - at);
}

/** Replaces `file` with `data`, atomically: see the top of this file. */
export function writeFileAtomic(
  file: string,
  data: string | Uint8Array,
  options: AtomicWriteOptions = {},
): void {
  const out = openAtomic(file, options);
  try {
    writeAll(out.fd, data);
  } catch (error) {
    out.abort();
    throw error;
  }
  out.commit();
}
