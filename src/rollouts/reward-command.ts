// --reward-cmd: a command of the user's scores each trajectory. It gets the trajectory as one JSON
// document on stdin and prints its reward on stdout: a number, or {"reward": 0.5, "metrics": {...}}
// (numbers or booleans). It runs under /bin/sh, in its own process group, so that a timeout ends it
// and whatever it started; on Windows under cmd.exe, its tree ended by taskkill (lib/spawn-plan.ts).
// A non-zero exit, a timeout, or output that is not a reward marks that trajectory failed, with the
// reason; the run goes on.

import { spawn } from 'node:child_process';
import { isObject } from '../lib/json.js';
import { killTree, shellCommandPlan } from '../lib/spawn-plan.js';

export interface Scored {
  reward: number;
  metrics?: Record<string, number | boolean>;
}

export type RewardResult = { ok: true; scored: Scored } | { ok: false; reason: string };

/** What a reward command may print: more is not a reward but a runaway. */
const MAX_OUTPUT_BYTES = 1 << 20;

const tail = (text: string) => {
  const line = text.trim().split('\n').at(-1) ?? '';
  return line.length > 200 ? `${line.slice(0, 200)}…` : line;
};

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
  if (typeof value === 'number') return { ok: true, scored: { reward: value } };
  if (!isObject(value) || typeof value.reward !== 'number')
    return { ok: false, reason: `printed ${JSON.stringify(tail(text))}: no numeric "reward"` };
  const metrics = value.metrics;
  if (metrics !== undefined) {
    if (
      !isObject(metrics) ||
      Object.values(metrics).some((m) => typeof m !== 'number' && typeof m !== 'boolean')
    )
      return { ok: false, reason: '"metrics" must be an object of numbers or booleans' };
    return {
      ok: true,
      scored: { reward: value.reward, metrics: metrics as Record<string, number | boolean> },
    };
  }
  return { ok: true, scored: { reward: value.reward } };
}

export function runRewardCommand(
  command: string,
  input: unknown,
  options: { timeoutMs: number; env: Record<string, string | undefined>; signal?: AbortSignal },
): Promise<RewardResult> {
  if (options.signal?.aborted) return Promise.resolve({ ok: false, reason: 'stopped' });
  return new Promise((resolve) => {
    const plan = shellCommandPlan(command, options.env);
    const child = spawn(plan.file, plan.args, {
      ...plan.options,
      env: options.env,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    let settled = false;
    // Once settled, whatever the command left running goes too (on Windows only while it runs).
    const endTree = () => {
      const running = child.exitCode === null && child.signalCode === null;
      if (child.pid !== undefined && (running || plan.killAfterExit)) killTree(plan.killTree(child.pid));
    };
    const finish = (result: RewardResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      endTree();
      resolve(result);
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
    child.on('error', (error) => finish({ ok: false, reason: `could not run: ${error.message}` }));
    child.on('close', (code, signal) => {
      if (code !== 0) {
        const why = signal ? `killed by ${signal}` : `exit ${code}`;
        const said = tail(stderr);
        return finish({ ok: false, reason: said ? `${why}: ${said}` : why });
      }
      finish(parseReward(stdout));
    });
    // A command that does not read its stdin closes it early: that is no failure of ours.
    child.stdin.on('error', () => {});
    child.stdin.end(JSON.stringify(input));
  });
}
