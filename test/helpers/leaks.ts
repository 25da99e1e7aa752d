// Processes a test run may leave behind. Two checks use this: after each test file (test/cleanup.ts),
// the processes that descend from the file's worker; after the whole run (test/global-setup.ts), those
// marked as the run's. The run marks what it starts: it sets TMPDIR and AIP_TEST_RUN to a temporary
// directory of its own; the workers, and the processes they start, inherit them (aipEnv() passes them
// on to bin/aip.js; aip gives its children the environment it was given, which names the run's
// directory in TMPDIR, AIP_TEST_RUN or AIP_CONFIG_DIR). A process is the run's when its environment or
// command line names that directory, or when it descends from the run's process: never because of the
// program it runs, which another developer's run in the same checkout would share.

import { readdirSync, readFileSync } from 'node:fs';
import { patience } from './patience.js';

export interface RunProcess {
  pid: number;
  ppid: number;
  /** The state letter of /proc/<pid>/stat (R, S, D, T, Z…). */
  state: string;
  command: string;
}

interface ProcInfo extends RunProcess {
  marked: boolean;
}

function read(pid: number, marker: string | undefined): ProcInfo | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined; // gone meanwhile
  }
  // pid (comm) state ppid …: comm may hold spaces and parentheses, so read from the last ')'.
  const close = stat.lastIndexOf(')');
  const [state = '?', ppid = '0'] = stat.slice(close + 2).split(' ');
  const text = (file: string) => {
    try {
      return readFileSync(`/proc/${pid}/${file}`, 'latin1').replaceAll('\0', ' ').trim();
    } catch {
      return ''; // another user's (not readable), or gone
    }
  };
  const command = text('cmdline') || stat.slice(stat.indexOf('(') + 1, close);
  const marked = marker !== undefined && (command.includes(marker) || text('environ').includes(marker));
  return { pid, ppid: Number(ppid), state, command, marked };
}

/**
 * Processes still there that descend from `root` (by default this process), or, given a `marker`,
 * whose environment or command line holds it (wherever they are now: an orphan's parent is init).
 * Not `root` itself nor its ancestors, not those `ignore` accepts, not zombies (ended, only not yet
 * reaped). Linux only (/proc); elsewhere, none are found.
 */
export function findProcesses(
  options: { root?: number; marker?: string; ignore?: (p: RunProcess) => boolean } = {},
): RunProcess[] {
  const root = options.root ?? process.pid;
  let names: string[];
  try {
    names = readdirSync('/proc');
  } catch {
    return [];
  }
  const all = new Map<number, ProcInfo>();
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue;
    const info = read(Number(name), options.marker);
    if (info) all.set(info.pid, info);
  }
  const ancestors = new Set<number>();
  for (let p: ProcInfo | undefined = all.get(root); p && !ancestors.has(p.pid); p = all.get(p.ppid))
    ancestors.add(p.pid);
  const descends = (p: ProcInfo): boolean => {
    const seen = new Set<number>();
    for (let q: ProcInfo | undefined = all.get(p.ppid); q && !seen.has(q.pid); q = all.get(q.ppid)) {
      if (q.pid === root) return true;
      seen.add(q.pid);
    }
    return false;
  };
  return [...all.values()]
    .filter((p) => !ancestors.has(p.pid) && p.state !== 'Z' && (p.marked || descends(p)))
    .map(({ pid, ppid, state, command }) => ({ pid, ppid, state, command }))
    .filter((p) => !options.ignore?.(p));
}

/**
 * findProcesses(), asked again until none are left or `ms` have passed (a process just killed, or one
 * finishing its exit, may take a moment to go: seconds on a busy machine).
 */
export async function waitForProcesses(
  options: Parameters<typeof findProcesses>[0] & { ms?: number } = {},
): Promise<RunProcess[]> {
  const deadline = Date.now() + (options.ms ?? patience(10_000));
  for (;;) {
    const left = findProcesses(options);
    if (left.length === 0 || Date.now() > deadline) return left;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Kills them (SIGKILL), those still there. */
export function killAll(processes: RunProcess[]): void {
  for (const p of processes) {
    try {
      process.kill(p.pid, 'SIGKILL');
    } catch {
      // gone meanwhile
    }
  }
}

export function describeProcess(p: RunProcess): string {
  return `pid ${p.pid} (parent ${p.ppid}, state ${p.state}): ${p.command.slice(0, 300)}`;
}
