// Every file aip writes whole (the config and the local records, chat transcripts, the detached emulator's
// record, `traces generate -o`) is written here: to a temporary file beside it, flushed to the disk,
// then renamed over it. A reader, or a process killed at any point (kill -9, a power cut after the
// rename), sees the old file or the new one, never a torn or empty one.
//
// What the user gave the file stays: an existing file keeps its mode, owner and group, and a symbolic
// link (where the caller asks, as every caller in aip does) keeps pointing where it did, the file at
// its end being what is replaced: the temporary file is made beside that one.
//
// A process killed while writing cannot remove its temporary file, so the name carries its pid
// (`.<name>.aip-<pid>-<random>.tmp`), and the next write of the same file removes those whose process
// is gone. Nothing is scanned at start-up: only the directory of a file being written, when it is.

import {
  accessSync,
  closeSync,
  constants,
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
} from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, join, resolve } from 'node:path';
import { writeAll } from './write-all.js';

/**
 * node:crypto loads only for a name too long to use as it is (~3 ms of start-up otherwise, paid by
 * every command that reads a local record, a TAB's completion among them).
 */
function sha256(text: string): string {
  const { createHash } = createRequire(import.meta.url)('node:crypto') as typeof import('node:crypto');
  return createHash('sha256').update(text).digest('hex');
}

export interface AtomicWriteOptions {
  /**
   * The file's mode, whatever it was before (the emulator's record: 0600). Without it an existing file
   * keeps its mode, and a new one gets `newMode`.
   */
  mode?: number;
  /**
   * The mode of a file made new (a transcript: 0600, it holds a conversation); 0666 less the umask
   * when not given, as a plain write would make it.
   */
  newMode?: number;
  /**
   * Write to the file a symbolic link points to, keeping the link (as a plain write does), instead of
   * replacing the link with a file of its own. A link to nothing yet makes the file it points to (as
   * `>` in a shell does); a link another user made in a shared directory (sticky and writable by all,
   * as /tmp) is refused, as the kernel's fs.protected_symlinks refuses to follow it.
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
  const short = Buffer.byteLength(name) <= 160 ? name : sha256(name).slice(0, 16);
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

/** An error of the file system's kind, with the words that say what it is (write-error.ts shows them). */
function fsError(code: string, detail: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`${code}: ${detail}`), { code, detail });
}

/**
 * A link in a directory that is sticky and writable by all (/tmp), made by another user than this
 * one and than the directory's owner, is not followed: anyone can plant one there, pointing at a file
 * of yours. The rule of the kernel's fs.protected_symlinks, which a rename over the resolved path
 * would otherwise get around.
 */
function refuseForeignLink(link: string, stat: Stats): void {
  const uid = process.geteuid?.();
  if (uid === undefined || stat.uid === uid) return;
  const dir = statSync(dirname(link));
  if ((dir.mode & 0o1002) === 0o1002 && stat.uid !== dir.uid)
    throw fsError(
      'EACCES',
      `it is a symbolic link another user made in a shared directory (${dirname(link)}), which aip does not follow`,
    );
}

/**
 * The path a write of `file` replaces: the file itself, or with followSymlinks the end of its chain of
 * links (which need not exist yet: it is then made). Throws the file system's errors (ELOOP, EACCES
 * for a foreign link in a shared directory).
 */
export function writeTarget(file: string, followSymlinks: boolean): string {
  if (!followSymlinks) return file;
  let path = file;
  for (let hops = 0; ; hops++) {
    const stat = statOrUndefined(lstatSync, path);
    if (!stat?.isSymbolicLink()) return path;
    // A link to a device or a pipe (/dev/stdout → /proc/self/fd/1 → pipe:[…]): written in place,
    // through the link, as the kernel resolves it.
    const end = statOrUndefined(statSync, path);
    if (end && !end.isFile() && !end.isDirectory()) return path;
    if (hops >= 40) throw fsError('ELOOP', 'too many levels of symbolic links');
    refuseForeignLink(path, stat);
    // Relative to the link's directory as the kernel sees it (that directory may itself be a link).
    path = resolve(realpathSync(dirname(path)), readlinkSync(path));
  }
}

/**
 * Throws (the file system's error) unless `file` can be rewritten: it is a regular file (or a device,
 * a pipe: written in place) that may be written, or does not exist, and the directory the new file is
 * made in is writable. For a check before anything is sent; the write itself may still meet a full
 * disk or a quota.
 */
export function assertRewritable(
  file: string,
  options: Pick<AtomicWriteOptions, 'followSymlinks'> = {},
): void {
  const path = writeTarget(file, options.followSymlinks ?? false);
  const existing = statOrUndefined(statSync, path);
  if (existing?.isDirectory()) throw fsError('EISDIR', 'it is a directory');
  if (existing) accessSync(path, constants.W_OK);
  if (!existing || existing.isFile()) accessSync(dirname(resolve(path)), constants.W_OK);
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
 * The new file gets the old one's owner and group, as a plain write leaves them: root rewriting
 * someone else's file leaves it theirs; a user rewriting a file of a group they are in (a shared
 * transcript) leaves it that group's. What cannot be kept (another user's file) is not: the file is
 * then this user's, with the old mode.
 */
function keepOwner(fd: number, existing: Stats): void {
  const uid = process.geteuid?.();
  if (uid === undefined || (existing.uid === uid && existing.gid === process.getegid?.())) return;
  try {
    if (uid === 0) fchownSync(fd, existing.uid, existing.gid);
    else fchownSync(fd, uid, existing.gid);
  } catch {
    // not a group of this user's: the file is this user's, in their group
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
  const path = writeTarget(file, options.followSymlinks ?? false);
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
  const fd = openSync(temp, 'wx', options.mode ?? (existing ? 0o600 : (options.newMode ?? 0o666)));
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
      if (existing) keepOwner(fd, existing);
      // After the owner: a change of owner clears the set-id bits.
      if (mode !== undefined) fchmodSync(fd, mode);
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

export { writeAll };
