// Rollouts against the emulator with a fixed time per token (issue 20): `aip rollouts` at concurrency
// 1, 4 and 16 against the ideal, concurrency ÷ the latency of one request measured in the same run
// (the same request, sent alone, one after another). Every reply is cut to the same number of tokens
// (max_tokens), so every request takes the same time and the ideal is exact. Also the client's CPU per
// rollout (the whole process, start-up included), from bench/rss.cjs. And the rewards side by side
// (issue 30) at concurrency 16: the built-in, a --reward-cmd and a --reward-server of the same check.

import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { control } from './workloads.mjs';

export const TOKEN_MS = 20;
export const TOKENS = 16;
export const GROUP_SIZE = 4;
/** Tasks per concurrency: about the same wall time for each (5 s of requests at the ideal). */
export const TASKS = { 1: 4, 4: 16, 16: 64 };
/** The concurrency the rewards are compared at. */
export const REWARD_CONCURRENCY = 16;

/**
 * The built-in `contains` as a node script: one trajectory on stdin, its reward on stdout
 * (--reward-cmd); with `serve`, the same for each request line, answered line by line (--reward-server).
 */
const REWARD_SCRIPT = `
const score = (input) => ({ reward: input.reply.toLowerCase().includes(String(input.reference).toLowerCase()) ? 1 : 0 });
let text = '';
process.stdin.setEncoding('utf8');
if (process.argv[2] === 'serve') {
  process.stdin.on('data', (chunk) => {
    const lines = (text + chunk).split('\\n');
    text = lines.pop();
    let out = '';
    for (const line of lines) {
      const { id, trajectory } = JSON.parse(line);
      out += JSON.stringify({ id, ...score(trajectory) }) + '\\n';
    }
    if (out) process.stdout.write(out);
  });
} else {
  process.stdin.on('data', (chunk) => (text += chunk));
  process.stdin.on('end', () => process.stdout.write(JSON.stringify(score(JSON.parse(text)))));
}
`;

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/**
 * What every rollouts measure needs (also bench/history.mjs): the emulator reset, a model created, and
 * the CLI's environment; `usageFile` gets the client's CPU and peak memory (bench/rss.cjs).
 */
export async function prepareRollouts({ node, bin, origin, key, env, dir }) {
  const usageFile = join(dir, 'usage-rollouts');
  const cliEnv = {
    ...env,
    AIP_BASE_URL: `${origin}/training/v1`,
    AIP_INFERENCE_URL: `${origin}/inference/v1`,
    AIP_API_KEY: key,
    AIP_PROJECT: 'bench/rollouts',
    AIP_BENCH_RSS_FILE: usageFile,
  };
  await control(origin, key, 'POST', '/reset');
  const created = spawnSync(
    node,
    [
      bin,
      'models',
      'create',
      '--name',
      'bench-rollouts',
      '--base-model',
      'OpenPipe/Qwen3-14B-Instruct',
      '-q',
    ],
    { env: cliEnv, encoding: 'utf8' },
  );
  if (created.status !== 0) throw new Error(`models create: ${created.stderr}`);
  const model = 'wandb-artifact:///bench/rollouts/bench-rollouts';
  return { cliEnv, usageFile, model };
}

/**
 * One `aip rollouts` run over `count` tasks: its rate, and the client's CPU per rollout. `extraEnv`
 * is added to the CLI's environment (bench/history.mjs: AIP_HISTORY, AIP_DATA_DIR).
 */
export function runRollouts(
  { node, root, bin, dir },
  { cliEnv, usageFile, model },
  name,
  count,
  concurrency,
  reward,
  extraEnv = {},
) {
  const tasks = join(dir, `rollout-tasks-${name}.jsonl`);
  writeFileSync(
    tasks,
    Array.from({ length: count }, (_, i) =>
      JSON.stringify({
        messages: [{ role: 'user', content: `Tell me about task ${i}.` }],
        reference: 'task',
      }),
    ).join('\n'),
  );
  const out = join(dir, `rollout-groups-${name}.jsonl`);
  rmSync(out, { force: true });
  const started = performance.now();
  const r = spawnSync(
    node,
    [
      '--require',
      join(root, 'bench', 'rss.cjs'),
      bin,
      'rollouts',
      '--model',
      model,
      '--tasks',
      tasks,
      ...reward,
      '-K',
      String(GROUP_SIZE),
      '--max-tokens',
      String(TOKENS),
      '--concurrency',
      String(concurrency),
      '--seed',
      '1',
      '-o',
      out,
      '--json',
    ],
    { env: { ...cliEnv, ...extraEnv }, encoding: 'utf8' },
  );
  const seconds = (performance.now() - started) / 1000;
  if (r.status !== 0) throw new Error(`aip rollouts exited ${r.status}: ${r.stderr}`);
  const summary = JSON.parse(r.stdout);
  if (summary.failed > 0) throw new Error(`aip rollouts ${reward.join(' ')}: ${summary.failed} failed`);
  const rollouts = summary.trajectories + summary.failed;
  const usage = JSON.parse(readFileSync(usageFile, 'utf8'));
  return { rollouts, seconds, rate: rollouts / seconds, cpuUsPerRollout: usage.cpu_us / rollouts };
}

/** A fixed time per token for unstreamed replies (0: the emulator's default again). */
export function setTokenMs(origin, key, ms) {
  return control(origin, key, 'POST', '/chat', { unstreamed_token_ms: ms });
}

/** The single-request latency the ideal is made from: the same request, alone, one after another. */
export async function singleLatency(origin, key, model) {
  const latencies = [];
  for (let i = 0; i < 12; i++) {
    const started = performance.now();
    const res = await fetch(`${origin}/training/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        model,
        messages: [{ role: 'user', content: `Tell me about task ${i}.` }],
        max_tokens: TOKENS,
        temperature: 1,
        logprobs: true,
        seed: i,
      }),
    });
    const body = await res.json();
    if (body.usage?.completion_tokens !== TOKENS)
      throw new Error(`a reply of ${body.usage?.completion_tokens} tokens, not ${TOKENS}`);
    if (i >= 2) latencies.push((performance.now() - started) / 1000);
  }
  return median(latencies);
}

export async function measureRollouts(workload) {
  const { origin, key } = workload;
  const setup = await prepareRollouts(workload);
  await setTokenMs(origin, key, TOKEN_MS);
  try {
    // One request at a time: the latency the ideal is made from.
    const latency = await singleLatency(origin, key, setup.model);
    /** One `aip rollouts` run over `count` tasks: its rate, and the client's CPU per rollout. */
    const measure = (name, count, concurrency, reward) =>
      runRollouts(workload, setup, name, count, concurrency, reward);
    const rows = [];
    for (const concurrency of [1, 4, 16]) {
      const run = measure(String(concurrency), TASKS[concurrency], concurrency, ['--reward', 'contains']);
      const ideal = concurrency / latency;
      rows.push({ concurrency, ...run, ideal, share: run.rate / ideal });
    }
    // The rewards side by side (issue 30), at the highest concurrency, in the same run: the built-in,
    // the same check as a --reward-cmd (a process per trajectory) and as a --reward-server (one
    // process for the run), both in node.
    const script = join(workload.dir, 'bench-reward.cjs');
    writeFileSync(script, REWARD_SCRIPT);
    const scriptCommand = (...args) => [workload.node, script, ...args].map((a) => `'${a}'`).join(' ');
    const rewards = [
      ['built-in', ['--reward', 'contains']],
      ['--reward-cmd', ['--reward-cmd', scriptCommand()]],
      ['--reward-server', ['--reward-server', scriptCommand('serve')]],
    ].map(([reward, flags]) => ({
      reward,
      concurrency: REWARD_CONCURRENCY,
      ...measure(`reward-${flags[0].slice(2)}`, TASKS[REWARD_CONCURRENCY], REWARD_CONCURRENCY, flags),
    }));
    return { latency, tokenMs: TOKEN_MS, tokens: TOKENS, rows, rewards };
  } finally {
    await setTokenMs(origin, key, 0);
  }
}
