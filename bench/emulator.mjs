// The durable emulator's costs: how long `aip emulator` takes to listen with an empty state directory
// and with one holding 10,000 finished jobs (their events and checkpoints), and how many creates a
// second it answers with its state written through to disk against --ephemeral, in the same run.

import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';

const KEY = 'aip-emulator-local-key';
const GROUPS = [{ trajectories: [{ reward: 1, messages_and_choices: [{ role: 'user', content: 'hi' }] }] }];

/** `aip emulator` in the foreground; resolves once it listens, with its origin and the time taken. */
function startForeground({ node, bin, env }, args) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(node, [bin, 'emulator', '--port', '0', '--step-ms', '1', ...args], {
      env,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let err = '';
    child.stderr.on('data', (d) => {
      err += d;
      const m = /listening on (http:\/\/[\d.]+:\d+)/.exec(err);
      if (m) {
        child.stderr.removeAllListeners('data');
        child.stderr.resume();
        resolve({ origin: m[1], ms: performance.now() - started, stop: () => stopChild(child) });
      }
    });
    child.once('exit', (code) => reject(new Error(`emulator exited ${code}: ${err}`)));
  });
}

function stopChild(child) {
  return new Promise((resolve) => {
    child.removeAllListeners('exit');
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

async function post(origin, path, body) {
  const res = await fetch(`${origin}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (res.status !== 200) throw new Error(`POST ${path}: HTTP ${res.status} ${await res.text()}`);
  return res.json();
}

/** `total` creates, `concurrency` at a time; requests per second. */
async function creates(total, concurrency, make) {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < total) await make(next++);
    }),
  );
  return total / ((performance.now() - started) / 1000);
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

export async function measureEmulator(options, { jobs = 10_000, runs = 5, createsPerRun = 2_000 } = {}) {
  const dir = mkdtempSync(join(options.dir, 'bench-emulator-'));
  try {
    // Start-up with an empty state directory (a new one each run), and with one of `jobs` jobs.
    const empty = [];
    for (let i = 0; i < runs; i++) {
      const emu = await startForeground(options, ['--state-dir', join(dir, `empty-${i}`)]);
      empty.push(emu.ms);
      await emu.stop();
    }
    const full = join(dir, 'full');
    const filling = await startForeground(options, ['--state-dir', full]);
    const model = await post(filling.origin, '/training/v1/preview/models', {
      project: 'bench',
      name: 'bench',
      base_model: 'OpenPipe/Qwen3-14B-Instruct',
    });
    await creates(jobs, 16, () =>
      post(filling.origin, '/training/v1/preview/training-jobs', {
        model_id: model.id,
        trajectory_groups: GROUPS,
      }),
    );
    // One more request brings every job to its end (events and checkpoints written).
    await new Promise((resolve) => setTimeout(resolve, 50));
    await fetch(`${filling.origin}/training/v1/health`);
    await filling.stop();
    const loaded = [];
    for (let i = 0; i < runs; i++) {
      const emu = await startForeground(options, ['--state-dir', full]);
      loaded.push(emu.ms);
      await emu.stop();
    }

    // Creates answered per second: durable against --ephemeral, alternating.
    const rates = { durable: [], ephemeral: [] };
    for (let i = 0; i < 3; i++) {
      for (const kind of ['durable', 'ephemeral']) {
        const args = kind === 'durable' ? ['--state-dir', join(dir, `rate-${i}`)] : ['--ephemeral'];
        const emu = await startForeground(options, args);
        rates[kind].push(
          await creates(createsPerRun, 8, (n) =>
            post(emu.origin, '/training/v1/preview/models', {
              project: 'bench',
              name: `m${n}`,
              base_model: 'OpenPipe/Qwen3-14B-Instruct',
            }),
          ),
        );
        await emu.stop();
      }
    }
    return {
      jobs,
      startEmptyMs: median(empty),
      startFullMs: median(loaded),
      durableCreatesPerSecond: median(rates.durable),
      ephemeralCreatesPerSecond: median(rates.ephemeral),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
