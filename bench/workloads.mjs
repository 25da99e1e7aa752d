// The long-running commands (product.md section 7, issue 7): `aip events --follow` on a job of 10,000
// events (memory flat in the number of events; CPU while idle-polling under 1% of a core) and
// `aip jobs validate rl` on a large trajectory file (MB/s and peak memory).

import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { createWriteStream, readFileSync, rmSync, statSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';

/** A control route of the emulator (/_emulator/…), with its key, as they need. */
export function control(origin, key, method, path, body) {
  return new Promise((resolve, reject) => {
    const req = request(
      `${origin}/_emulator${path}`,
      {
        method,
        agent: false,
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      },
      (res) => {
        let text = '';
        res.on('data', (d) => {
          text += d;
        });
        res.on('end', () =>
          res.statusCode < 300
            ? resolve(text ? JSON.parse(text) : undefined)
            : reject(new Error(`${method} /_emulator${path} answered ${res.statusCode}: ${text}`)),
        );
      },
    );
    req.on('error', reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

function usageOf(file) {
  return JSON.parse(readFileSync(file, 'utf8'));
}

export async function measureEvents({ node, root, bin, origin, key, env, dir }) {
  const usageFile = join(dir, 'usage-events');
  const cliEnv = {
    ...env,
    AIP_BASE_URL: `${origin}/training/v1`,
    AIP_INFERENCE_URL: `${origin}/inference/v1`,
    AIP_API_KEY: key,
    AIP_PROJECT: 'bench/events',
    AIP_BENCH_RSS_FILE: usageFile,
  };
  const aipSync = (args) => {
    const r = spawnSync(node, [bin, ...args], { env: cliEnv, encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`aip ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
    return r.stdout.trim();
  };
  await control(origin, key, 'POST', '/reset');
  aipSync([
    'models',
    'create',
    '--name',
    'bench-events',
    '--base-model',
    'OpenPipe/Qwen3-14B-Instruct',
    '-q',
  ]);
  const groups = join(root, 'examples', 'groups.jsonl');

  /** Follows a job of `steps` steps to its end; its peak memory. */
  const follow = async (steps) => {
    await control(origin, key, 'POST', '/job-plans', { steps, step_ms: 1 });
    const job = aipSync(['jobs', 'create', 'rl', '--model', 'bench-events', '--file', groups, '-q']);
    rmSync(usageFile, { force: true });
    const r = spawnSync(
      node,
      [
        '--require',
        join(root, 'bench', 'rss.cjs'),
        bin,
        'events',
        job,
        '--follow',
        '--jsonl',
        '--interval',
        '0.05',
      ],
      {
        env: cliEnv,
        encoding: 'utf8',
        maxBuffer: 256 * 1024 * 1024,
      },
    );
    if (r.status !== 0) throw new Error(`events --follow exited ${r.status}: ${r.stderr}`);
    return { events: r.stdout.trim().split('\n').length, rssMb: usageOf(usageFile).rss / 1024 / 1024 };
  };
  const small = await follow(1_000);
  const large = await follow(10_000);

  // Idle: a job that will not move for a while, followed at the default interval (1 s). Two runs, of
  // 4 s and 14 s: the difference of their CPU time is the polling alone, without start-up.
  await control(origin, key, 'POST', '/job-plans', { steps: 3, step_ms: 3_600_000, times: 2 });
  const idleRun = async (ms) => {
    // A run whose exit hook never wrote must not pass off the previous run's figures as its own.
    rmSync(usageFile, { force: true });
    const job = aipSync(['jobs', 'create', 'rl', '--model', 'bench-events', '--file', groups, '-q']);
    const child = spawn(node, ['--require', join(root, 'bench', 'rss.cjs'), bin, 'events', job, '--follow'], {
      env: cliEnv,
      stdio: 'ignore',
    });
    await new Promise((resolve) => setTimeout(resolve, ms));
    child.kill('SIGINT');
    await once(child, 'exit');
    return usageOf(usageFile);
  };
  const short = await idleRun(4_000);
  const long = await idleRun(14_000);
  const idleCpuPercent = ((long.cpu_us - short.cpu_us) / 1e6 / 10) * 100;
  await control(origin, key, 'POST', '/job-plans', { step_ms: 300 });
  return {
    smallEvents: small.events,
    smallRssMb: small.rssMb,
    largeEvents: large.events,
    largeRssMb: large.rssMb,
    idleCpuPercent,
    idleRssMb: long.rss / 1024 / 1024,
  };
}

/** A file of valid trajectory groups of about `mb` MB (examples/groups.jsonl, repeated). */
async function trajectoryFile(root, path, mb) {
  const lines = readFileSync(join(root, 'examples', 'groups.jsonl'), 'utf8')
    .trimEnd()
    .split('\n');
  const out = createWriteStream(path);
  let written = 0;
  for (let i = 0; written < mb * 1e6; i++) {
    const line = `${lines[i % lines.length]}\n`;
    written += Buffer.byteLength(line);
    if (!out.write(line)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'close');
}

export async function measureValidate({ node, root, bin, env, dir, mb }) {
  const file = join(dir, 'groups.jsonl');
  await trajectoryFile(root, file, mb);
  const usageFile = join(dir, 'usage-validate');
  const started = performance.now();
  const r = spawnSync(
    node,
    ['--require', join(root, 'bench', 'rss.cjs'), bin, 'jobs', 'validate', 'rl', file, '--json'],
    {
      env: { ...env, AIP_BENCH_RSS_FILE: usageFile },
      encoding: 'utf8',
    },
  );
  const seconds = (performance.now() - started) / 1000;
  if (r.status !== 0) throw new Error(`jobs validate exited ${r.status}: ${r.stderr.slice(0, 500)}`);
  const size = statSync(file).size / 1e6;
  rmSync(file, { force: true });
  return { mb: size, seconds, mbPerSecond: size / seconds, rssMb: usageOf(usageFile).rss / 1024 / 1024 };
}
