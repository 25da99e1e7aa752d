// --reward-cmd: a command of the user's scores each trajectory. It gets the trajectory as one JSON
// document on stdin and prints its reward on stdout: a number, or {"reward": 0.5, "metrics": {...}}
// (numbers or booleans). Every number must be finite: JSON has no Infinity or NaN, so 1e999 (which
// reads as Infinity) is no reward, as NaN, 0x10 or 1_000 are not. It runs under /bin/sh, in its own
// process group, so that a timeout ends it and whatever it started; on Windows under cmd.exe, its tree
// ended by taskkill (lib/spawn-plan.ts).
// The command has ended when its own process exits: what it printed then is its answer, and what it
// left running in its group (`slow & echo 1`) is ended at once, not waited for. A pipe that something
// outside the group still holds is given a moment (EXIT_GRACE_MS) for what the command wrote, then
// let go.
// A non-zero exit, a timeout, or output that is not a reward marks that trajectory failed, with the
// reason; the run goes on.

import { spawn } from 'node:child_process';
import { isObject } from '../lib/json.js';
import { killTree, shellCommandPlan } from '../lib/spawn-plan.js';
import { makePrivateDir, removePrivateDir, type Sandbox, sandboxedCommandPlan } from './sandbox.js';

export interface Scored {
  reward: number;
  metrics?: Record<string, number | boolean>;
  /** Text kept beside the trajectory's own metadata (a judge's words: metrics hold only numbers). */
  metadata?: Record<string, string>;
}

export type RewardResult = { ok: true; scored: Scored } | { ok: false; reason: string };

/** What a reward command may print: more is not a reward but a runaway. */
const MAX_OUTPUT_BYTES = 1 << 20;

const tail = (text: string) => {
  const line = text.trim().split('\n').at(-1) ?? '';
  return line.length > 200 ? `${line.slice(0, 200)}…` : line;
};

/**
 * Why a scored trajectory cannot be written, or undefined: a reward and metrics that JSON can carry
 * (finite numbers; -0 is written as 0). Every scorer's result passes here (rollouts/run.ts), so no
 * reward, whoever computed it, can make a group that fails its own check.
 */
export function unwritableScore(scored: Scored): string | undefined {
  if (typeof scored.reward !== 'number' || !Number.isFinite(scored.reward))
    return `the reward ${String(scored.reward)} is not a finite number`;
  for (const [name, value] of Object.entries(scored.metrics ?? {}))
    if (typeof value !== 'boolean' && (typeof value !== 'number' || !Number.isFinite(value)))
      return `the metric ${JSON.stringify(name)} is ${String(value)}, not a finite number or a boolean`;
  return undefined;
}

/** Printed as JSON, a number is finite: 1e999 reads as Infinity, which JSON cannot carry. */
const notFinite = (text: string, what: string) =>
  `printed ${JSON.stringify(tail(text))}: ${what} is not a finite number (JSON cannot hold it)`;

/** The reward in what the command printed, or why there is none. */
export function parseReward(stdout: string): RewardResult {
  const text = stdout.trim();
  if (text === '') return { ok: false, reason: 'printed nothing (expected a number or {"reward": …})' };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, reason: `printed ${JSON.stringify(tail(text))}, not a number or {"reward": …}` };
  }
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) return { ok: false, reason: notFinite(text, 'the reward') };
    return { ok: true, scored: { reward: value + 0 } };
  }
  if (!isObject(value) || typeof value.reward !== 'number')
    return { ok: false, reason: `printed ${JSON.stringify(tail(text))}: no numeric "reward"` };
  if (!Number.isFinite(value.reward)) return { ok: false, reason: notFinite(text, '"reward"') };
  const reward = value.reward + 0;
  const metrics = value.metrics;
  if (metrics === undefined) return { ok: true, scored: { reward } };
  if (
    !isObject(metrics) ||
    Object.values(metrics).some((m) => typeof m !== 'number' && typeof m !== 'boolean')
  )
    return { ok: false, reason: '"metrics" must be an object of numbers or booleans' };
  const infinite = Object.entries(metrics).find(([, m]) => typeof m === 'number' && !Number.isFinite(m));
  if (infinite) return { ok: false, reason: notFinite(text, `the metric ${JSON.stringify(infinite[0])}`) };
  return { ok: true, scored: { reward, metrics: metrics as Record<string, number | boolean> } };
}

/**
 * After the command's own process has exited, how long the pipes may stay open before what it printed
 * is taken as its answer: they close at once unless something outside its process group holds them.
 */
export const EXIT_GRACE_MS = 1000;

export function runRewardCommand(
  command: string,
  input: unknown,
  options: {
    timeoutMs: number;
    env: Record<string, string | undefined>;
    signal?: AbortSignal;
    /** --sandbox: run confined (rollouts/sandbox.ts), with a private directory of its own. */
    sandbox?: Sandbox;
  },
): Promise<RewardResult> {
  if (options.signal?.aborted) return Promise.resolve({ ok: false, reason: 'stopped' });
  let privateDir: string | undefined;
  try {
    if (options.sandbox) privateDir = makePrivateDir();
  } catch (error) {
    const reason = `could not make its private directory: ${(error as Error).message}`;
    return Promise.resolve({ ok: false, reason });
  }
  return new Promise((resolve) => {
    const plan = options.sandbox
      ? sandboxedCommandPlan(command, options.sandbox, privateDir!)
      : shellCommandPlan(command, options.env);
    const child = spawn(plan.file, plan.args, {
      ...plan.options,
      env: options.env,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    let settled = false;
    let treeEnded = false;
    let exited: { code: number | null; signal: NodeJS.Signals | null } | undefined;
    let grace: NodeJS.Timeout | undefined;
    // Whatever the command left running goes once it has exited or been given up on (on Windows only
    // while it runs: there, the tree is found from the command's own pid).
    const endTree = () => {
      if (treeEnded || child.pid === undefined) return;
      const running = child.exitCode === null && child.signalCode === null;
      if (!running && !plan.killAfterExit) return;
      treeEnded = true;
      killTree(plan.killTree(child.pid));
    };
    const finish = (result: RewardResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearTimeout(grace);
      options.signal?.removeEventListener('abort', onAbort);
      endTree();
      // A pipe held open by a process outside the group must not keep aip waiting (or alive).
      child.stdout.destroy();
      child.stderr.destroy();
      resolve(result);
    };
    /** The answer of a command that has exited: its exit status, then what it printed. */
    const answer = (): RewardResult => {
      const { code, signal } = exited!;
      if (code !== 0) {
        const why = signal ? `killed by ${signal}` : `exit ${code}`;
        const said = tail(stderr);
        return { ok: false, reason: said ? `${why}: ${said}` : why };
      }
      return parseReward(stdout);
    };
    const timer = setTimeout(
      () => finish({ ok: false, reason: `timed out after ${options.timeoutMs / 1000}s` }),
      options.timeoutMs,
    );
    const onAbort = () => finish({ ok: false, reason: 'stopped' });
    options.signal?.addEventListener('abort', onAbort, { once: true });
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
      if (stdout.length > MAX_OUTPUT_BYTES)
        finish({ ok: false, reason: `printed more than ${MAX_OUTPUT_BYTES} bytes` });
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      if (stderr.length < MAX_OUTPUT_BYTES) stderr += chunk;
    });
    // The private directory goes once the sandbox has ended (killed, or exited by itself).
    if (privateDir !== undefined) {
      child.on('exit', () => removePrivateDir(privateDir));
      child.on('error', () => removePrivateDir(privateDir));
    }
    child.on('error', (error) => finish({ ok: false, reason: `could not run: ${error.message}` }));
    child.on('exit', (code, signal) => {
      if (settled) return;
      exited = { code, signal };
      // The command has ended: its timeout no longer applies, and what it left behind goes now. Its
      // own output is in the pipe already, read to its end once nothing else holds the pipe open.
      clearTimeout(timer);
      endTree();
      grace = setTimeout(() => finish(answer()), EXIT_GRACE_MS);
    });
    child.on('close', () => {
      if (exited) finish(answer());
    });
    // A command that does not read its stdin closes it early: that is no failure of ours.
    child.stdin.on('error', () => {});
    child.stdin.end(JSON.stringify(input));
  });
}
