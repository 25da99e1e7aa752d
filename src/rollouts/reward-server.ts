// --reward-server: a long-lived command of the user's scores every trajectory (or a pool of
// --reward-workers of them, each request going to the one with the fewest in flight). JSON Lines both
// ways: aip writes {"id": n, "trajectory": <what --reward-cmd reads on stdin>} to its stdin, it prints
// {"id": n, "reward": …, "metrics": {…}} or {"id": n, "error": "…"} on stdout, in any order. It starts
// as --reward-cmd does (lib/spawn-plan.ts: /bin/sh in a process group of its own, cmd.exe on Windows),
// lazily, when a request first needs it: a plan that is built and never scored starts nothing.
//
// The same failure rules as --reward-cmd: a reward that is not a finite number, bad metrics, an error
// answer or no answer within --reward-timeout (per trajectory, each time it is sent) fail that
// trajectory with the reason, never the run. What a server prints is not trusted: a line that is not
// an answer (a log line on stdout), a line over MAX_LINE_CHARS, an id it was never sent or one
// answered twice is ignored, with a warning the first time; its stderr is kept, as --reward-cmd's is,
// and its last line given as the reason when it exits.
//
// A server that exits is started again when next needed, and the trajectories it had in flight are
// sent again, once: a trajectory in flight at a second failure is failed with the reason. A server that
// answers nothing for --reward-timeout while a trajectory waits is hung: that trajectory times out,
// the server's process group is killed and the others in flight are sent again as after an exit. One
// that fails MAX_FAILURES_IN_A_ROW times without answering anything is not started again in that run:
// its requests go to the pool's other servers, or fail at once with the reason.
//
// close() (runRollouts, at the end of every run) closes each server's stdin, gives it CLOSE_GRACE_MS
// to exit, then kills its process group; nothing is left running. Called after that, the scorer
// starts again.

import type { Context } from '../context.js';
import { isObject } from '../lib/json.js';
import { trajectories } from '../output/plural.js';
import { DEFAULT_REWARD_TIMEOUT_S } from './defaults.js';
import { parseReward, type RewardResult } from './reward-command.js';
import { rewardInput } from './reward-input.js';
import {
  CLOSE_GRACE_MS,
  MAX_LINE_CHARS,
  preview,
  type Request,
  type ServerEvents,
  ServerProcess,
  type Slot,
} from './reward-server-process.js';
import type { Scorer } from './run.js';
import type { Sandbox } from './sandbox.js';
import type { Task } from './tasks.js';

export { CLOSE_GRACE_MS, MAX_LINE_CHARS } from './reward-server-process.js';

/** Sent once, and once again after the server failed while it was in flight. */
const MAX_ATTEMPTS = 2;
/** Failures (exits, hangs) without an answer between them, after which a server is not restarted. */
export const MAX_FAILURES_IN_A_ROW = 3;
/** Restarts told on stderr in one run; after that, only the trajectories' reasons say. */
const RESTARTS_REPORTED = 3;

export interface RewardServerOptions {
  rewardWorkers?: number;
  rewardTimeout?: number;
}

/** What the scorer is made with besides the flags: the sandbox --sandbox found, if any. */
export interface RewardServerSetup {
  sandbox?: Sandbox;
}

/** What tests may change: how long a server has to exit once its stdin is closed. */
export interface RewardServerTuning {
  closeGraceMs?: number;
}

/** The scorer's state between a start and a close. */
class RewardServerPool implements ServerEvents {
  private readonly slots: Slot[];
  private readonly live = new Set<ServerProcess>();
  private nextId = 1;
  private lastPicked = -1;
  private restarts = 0;

  constructor(
    private readonly ctx: Context,
    private readonly command: string,
    workers: number,
    private readonly timeoutMs: number,
    private readonly warnOnce: (kind: string, message: string) => void,
    private readonly sandbox: Sandbox | undefined,
  ) {
    this.slots = Array.from({ length: workers }, (_, index) => ({ index, failuresInARow: 0 }));
  }

  score(task: Task, trajectory: Record<string, unknown>, reply: string, signal: AbortSignal) {
    if (signal.aborted) return Promise.resolve<RewardResult>({ ok: false, reason: 'stopped' });
    return new Promise<RewardResult>((resolve) => {
      const id = this.nextId++;
      const onAbort = () => {
        request.server?.givenUp.add(id);
        this.settle(request, { ok: false, reason: 'stopped' });
      };
      const request: Request = {
        id,
        line: `${JSON.stringify({ id, trajectory: rewardInput(task, trajectory, reply) })}\n`,
        attempts: 0,
        answersAtSend: 0,
        settled: false,
        finish: (result) => {
          signal.removeEventListener('abort', onAbort);
          resolve(result);
        },
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.dispatch(request);
    });
  }

  /** Every server's stdin closed, each given `graceMs` to exit, then killed; what waits, failed. */
  async close(graceMs: number): Promise<void> {
    await Promise.all([...this.live].map((server) => server.close(graceMs)));
  }

  /**
   * To the server with the fewest in flight (started if none runs there), ties taken in turn so that
   * every server of the pool is used even when answers come faster than requests; or failed at once if
   * none will run.
   */
  private dispatch(request: Request): void {
    let best: Slot | undefined;
    const count = this.slots.length;
    for (let i = 1; i <= count; i++) {
      const slot = this.slots[(this.lastPicked + i) % count]!;
      if (slot.broken) continue;
      if (!best || (slot.server?.pending.size ?? 0) < (best.server?.pending.size ?? 0)) best = slot;
    }
    if (!best) {
      const why = this.slots[0]?.broken ?? 'no server';
      this.settle(request, { ok: false, reason: `the reward server is not started again: ${why}` });
      return;
    }
    this.lastPicked = best.index;
    best.server ??= this.start(best);
    request.attempts++;
    best.server.send(request);
    const server = best.server;
    request.timer = setTimeout(() => this.timedOut(request, server), this.timeoutMs);
  }

  private start(slot: Slot): ServerProcess {
    const env = { ...this.ctx.env, AIP_REWARD_WORKER: String(slot.index) };
    const server = new ServerProcess(slot, this.command, env, this, this.sandbox);
    this.live.add(server);
    return server;
  }

  private settle(request: Request, result: RewardResult): void {
    if (request.settled) return;
    request.settled = true;
    clearTimeout(request.timer);
    request.server?.pending.delete(request.id);
    request.finish(result);
  }

  /** No answer in time: the trajectory fails; a server that answered nothing meanwhile is hung. */
  private timedOut(request: Request, server: ServerProcess): void {
    server.givenUp.add(request.id);
    this.settle(request, { ok: false, reason: `timed out after ${this.timeoutMs / 1000}s` });
    if (server.running && !server.closing && server.answers === request.answersAtSend) {
      // The others in flight there are sent again once it has gone, their time starting again then.
      for (const other of server.pending.values()) clearTimeout(other.timer);
      server.kill(`answered nothing for ${this.timeoutMs / 1000}s (hung), and was ended`);
    }
  }

  line(server: ServerProcess, line: string): void {
    const text = line.trim();
    if (text === '') return;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      value = undefined;
    }
    if (!isObject(value) || !('id' in value)) {
      this.warnOnce(
        'not an answer',
        `the reward server printed a line that is not an answer, ignored (its logs belong on stderr): ${JSON.stringify(preview(text))}`,
      );
      return;
    }
    const request = this.answerTo(server, value.id);
    if (!request) return;
    if (value.error !== undefined && value.error !== null) {
      const error = typeof value.error === 'string' ? value.error : JSON.stringify(value.error);
      this.settle(request, { ok: false, reason: `answered an error: ${preview(error)}` });
    } else this.settle(request, parseReward(text));
  }

  overlong(server: ServerProcess, head: string): void {
    this.warnOnce(
      'overlong',
      `the reward server printed a line longer than ${MAX_LINE_CHARS} characters, ignored`,
    );
    // Whose answer it was is read from its start, where an answer written as asked has its id.
    const id = /^\s*\{\s*"id"\s*:\s*(\d+)\s*[,}]/.exec(head)?.[1];
    const request = id === undefined ? undefined : this.answerTo(server, Number(id));
    if (request)
      this.settle(request, {
        ok: false,
        reason: `answered with a line longer than ${MAX_LINE_CHARS} characters`,
      });
  }

  /** The request an answer is for, counted as the server's sign of life; or why it is ignored. */
  private answerTo(server: ServerProcess, id: unknown): Request | undefined {
    const request = typeof id === 'number' ? server.pending.get(id) : undefined;
    if (request) {
      server.answers++;
      server.answered.add(request.id);
      server.slot.failuresInARow = 0;
      return request;
    }
    if (typeof id === 'number' && server.givenUp.has(id)) return undefined; // too late: no news
    if (typeof id === 'number' && server.answered.has(id))
      this.warnOnce('again', `the reward server answered id ${id} more than once: the first answer counts`);
    else
      this.warnOnce(
        'unknown',
        `the reward server answered an id it was not sent (${preview(JSON.stringify(id) ?? String(id))}), ignored`,
      );
    return undefined;
  }

  exited(server: ServerProcess): void {
    if (server.slot.server === server) server.slot.server = undefined;
  }

  gone(server: ServerProcess, why: string): void {
    this.live.delete(server);
    this.exited(server);
    const inFlight = [...server.pending.values()];
    server.pending.clear();
    if (server.closing) {
      for (const request of inFlight) this.settle(request, { ok: false, reason: 'stopped' });
      return;
    }
    const { slot } = server;
    slot.failuresInARow++;
    if (slot.failuresInARow >= MAX_FAILURES_IN_A_ROW)
      slot.broken = `it failed ${slot.failuresInARow} times without answering (last: ${why})`;
    this.reportFailure(slot, why, inFlight.length);
    for (const request of inFlight) {
      clearTimeout(request.timer);
      request.server = undefined;
      if (request.attempts < MAX_ATTEMPTS) this.dispatch(request);
      else
        this.settle(request, {
          ok: false,
          reason: `the reward server ${why} while scoring it, on the retry too`,
        });
    }
  }

  private reportFailure(slot: Slot, why: string, inFlight: number): void {
    this.restarts++;
    if (this.restarts > RESTARTS_REPORTED + 1) return;
    if (this.restarts > RESTARTS_REPORTED) {
      this.ctx.io.warn('the reward server failed again: further restarts are not reported');
      return;
    }
    const which =
      this.slots.length > 1
        ? `the reward server (worker ${slot.index + 1} of ${this.slots.length})`
        : 'the reward server';
    const then = slot.broken ? `not started again: ${slot.broken}` : 'started again when needed';
    const sent = inFlight === 0 ? '' : `, ${trajectories(inFlight)} in flight sent again once`;
    this.ctx.io.warn(`${which} ${why}: ${then}${sent}`);
  }
}

/** The scorer of --reward-server: a pool started on its first call and ended by close(). */
export function rewardServerScorer(
  ctx: Context,
  command: string,
  options: RewardServerOptions,
  tuning: RewardServerTuning = {},
  setup: RewardServerSetup = {},
): Scorer {
  const workers = options.rewardWorkers ?? 1;
  const timeoutMs = (options.rewardTimeout ?? DEFAULT_REWARD_TIMEOUT_S) * 1000;
  // Once per scorer, not per run: eval's runs, one per checkpoint, share one.
  const warned = new Set<string>();
  const warnOnce = (kind: string, message: string) => {
    if (warned.has(kind)) return;
    warned.add(kind);
    ctx.io.warn(message);
  };
  let pool: RewardServerPool | undefined;
  const scorer: Scorer = (task, trajectory, reply, signal) => {
    pool ??= new RewardServerPool(ctx, command, workers, timeoutMs, warnOnce, setup.sandbox);
    return pool.score(task, trajectory, reply, signal);
  };
  scorer.close = async () => {
    const closing = pool;
    pool = undefined;
    await closing?.close(tuning.closeGraceMs ?? CLOSE_GRACE_MS);
  };
  return scorer;
}
