// One --reward-server process (reward-server.ts runs a pool of them): started as --reward-cmd is
// (lib/spawn-plan.ts, in a sandbox when --sandbox asks), its requests in flight, its stdout read line by
// line and handed to the pool (ServerEvents), its stderr kept for the reason of its exit, and its
// process group ended when it exits or is closed. What the lines mean is the pool's to judge.

import { type ChildProcess, spawn } from 'node:child_process';
import { killTree, type ShellCommandPlan, shellCommandPlan } from '../lib/spawn-plan.js';
import { EXIT_GRACE_MS, type RewardResult } from './reward-command.js';
import { makePrivateDir, removePrivateDir, type Sandbox, sandboxedCommandPlan } from './sandbox.js';

/** The longest answer line a server may print: more is not an answer but a runaway (as --reward-cmd). */
export const MAX_LINE_CHARS = 1 << 20;
/** After its stdin is closed, how long a server has to exit before its process group is killed. */
export const CLOSE_GRACE_MS = 2000;

/** How much of a server's stderr is kept, for the reason of its exit. */
const STDERR_KEPT_CHARS = 64 * 1024;

export const preview = (text: string) => (text.length > 200 ? `${text.slice(0, 200)}…` : text);

/** The last line of what a server wrote on stderr, for the reason of its exit. */
const lastLine = (text: string) => preview(text.trim().split('\n').at(-1)?.trim() ?? '');

/** One place in the pool: the process that runs there now, if any, and how it has been failing. */
export interface Slot {
  index: number;
  server?: ServerProcess;
  failuresInARow: number;
  /** Why it is not started again in this run. */
  broken?: string;
}

export interface Request {
  id: number;
  /** The request line, newline included. */
  line: string;
  attempts: number;
  /** The server it is in flight on. */
  server?: ServerProcess;
  /** How many answers that server had given when this was sent: none since means it is hung. */
  answersAtSend: number;
  timer?: NodeJS.Timeout;
  settled: boolean;
  finish(result: RewardResult): void;
}

export interface ServerEvents {
  line(server: ServerProcess, line: string): void;
  overlong(server: ServerProcess, head: string): void;
  /** The process has exited or could not start: it takes no more requests. */
  exited(server: ServerProcess): void;
  /** Its output is read to the end: what it had in flight is to be sent again or failed. */
  gone(server: ServerProcess, why: string): void;
}

/** One running server process: its requests in flight, its output read line by line. */
export class ServerProcess {
  readonly pending = new Map<number, Request>();
  /** Ids answered, or given up on (timed out, stopped): a second answer to one is no news. */
  readonly answered = new Set<number>();
  readonly givenUp = new Set<number>();
  answers = 0;
  /** Why aip ended it (hung, closed): the reason of its exit, instead of its status. */
  endedBecause: string | undefined;
  closing = false;
  readonly done: Promise<void>;
  private readonly child: ChildProcess;
  private readonly plan: ShellCommandPlan;
  private buffer = '';
  /** The head of a line over the limit, dropped until its end. */
  private overlongHead: string | undefined;
  private stderr = '';
  private exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  private spawnError: Error | undefined;
  private treeEnded = false;
  private finished = false;
  private grace: NodeJS.Timeout | undefined;
  private resolveDone!: () => void;

  constructor(
    readonly slot: Slot,
    command: string,
    env: Record<string, string | undefined>,
    private readonly events: ServerEvents,
    sandbox?: Sandbox,
  ) {
    this.done = new Promise((resolve) => {
      this.resolveDone = resolve;
    });
    const privateDir = sandbox ? makePrivateDir() : undefined;
    this.plan = sandbox
      ? sandboxedCommandPlan(command, sandbox, privateDir!)
      : shellCommandPlan(command, env);
    this.child = spawn(this.plan.file, this.plan.args, {
      ...this.plan.options,
      env,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    // Its private directory goes once the sandbox has ended (killed, or exited by itself).
    if (privateDir !== undefined) {
      this.child.on('exit', () => removePrivateDir(privateDir));
      this.child.on('error', () => removePrivateDir(privateDir));
    }
    this.child.stdout!.setEncoding('utf8').on('data', (chunk: string) => this.read(chunk));
    this.child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
      this.stderr += chunk;
      if (this.stderr.length > 2 * STDERR_KEPT_CHARS) this.stderr = this.stderr.slice(-STDERR_KEPT_CHARS);
    });
    // A server that stops reading (it exited) is found by its exit, not by a write that failed.
    this.child.stdin!.on('error', () => {});
    this.child.on('error', (error) => {
      this.spawnError = error;
      this.events.exited(this);
      this.finish();
    });
    this.child.on('exit', (code, signal) => {
      this.exit = { code, signal };
      this.events.exited(this);
      // What it left running in its group goes now; its own output is in the pipe already, read to
      // its end once nothing else holds the pipe open (or after a moment if something outside does).
      this.endTree();
      this.grace = setTimeout(() => this.finish(), EXIT_GRACE_MS);
    });
    this.child.on('close', () => this.finish());
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  get running(): boolean {
    return this.exit === undefined && this.spawnError === undefined;
  }

  send(request: Request): void {
    this.pending.set(request.id, request);
    request.server = this;
    request.answersAtSend = this.answers;
    this.child.stdin!.write(request.line);
  }

  /** Ends it now, with the reason its requests are given (hung). */
  kill(because: string): void {
    this.endedBecause ??= because;
    this.endTree(true);
  }

  /** Its stdin closed; its process group killed if it has not exited after `graceMs`. */
  close(graceMs: number): Promise<void> {
    this.closing = true;
    this.endedBecause ??= 'stopped';
    this.child.stdin!.end();
    if (this.running) {
      const timer = setTimeout(() => this.endTree(true), graceMs);
      void this.done.then(() => clearTimeout(timer));
    }
    return this.done;
  }

  private endTree(force = false): void {
    if (this.treeEnded || this.child.pid === undefined) return;
    // After its exit only where the group outlives its leader (POSIX); on Windows the pid names nothing.
    if (!this.running && !this.plan.killAfterExit) return;
    if (!force && this.running) return;
    this.treeEnded = true;
    killTree(this.plan.killTree(this.child.pid));
  }

  private read(chunk: string): void {
    let start = 0;
    for (let end = chunk.indexOf('\n'); end >= 0; end = chunk.indexOf('\n', start)) {
      const piece = chunk.slice(start, end);
      start = end + 1;
      if (this.overlongHead !== undefined) {
        const head = this.overlongHead;
        this.overlongHead = undefined;
        this.events.overlong(this, head);
        continue;
      }
      const line = this.buffer + piece;
      this.buffer = '';
      if (line.length > MAX_LINE_CHARS) this.events.overlong(this, line.slice(0, 200));
      else this.events.line(this, line);
    }
    if (this.overlongHead !== undefined) return;
    this.buffer += chunk.slice(start);
    if (this.buffer.length > MAX_LINE_CHARS) {
      this.overlongHead = this.buffer.slice(0, 200);
      this.buffer = '';
    }
  }

  /** Why it stopped, in words. */
  private why(): string {
    if (this.endedBecause) return this.endedBecause;
    if (this.spawnError) return `could not run: ${this.spawnError.message}`;
    const { code, signal } = this.exit ?? { code: null, signal: null };
    const status = signal ? `killed by ${signal}` : `exit ${code}`;
    const said = lastLine(this.stderr);
    return `exited (${said ? `${status}: ${said}` : status})`;
  }

  private finish(): void {
    if (this.finished) return;
    this.finished = true;
    clearTimeout(this.grace);
    this.endTree();
    // A last line without its newline is still an answer.
    if (this.overlongHead !== undefined) this.events.overlong(this, this.overlongHead);
    else if (this.buffer.trim() !== '') this.events.line(this, this.buffer);
    this.buffer = '';
    this.child.stdout!.destroy();
    this.child.stderr!.destroy();
    this.events.gone(this, this.why());
    this.resolveDone();
  }
}
