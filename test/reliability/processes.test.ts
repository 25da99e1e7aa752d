// What only real processes show: concurrent config writers, a config directory that cannot be
// written, SIGINT and SIGTERM in the middle of long commands (exit 130 / 143, a resume hint, the
// terminal as it was), and long runs against an emulator that fails one request in ten.

import { spawn } from 'node:child_process';
import { chmodSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempConfigDir, words } from '../helpers/cli.js';
import { useEmulator } from '../helpers/emulator.js';
import { patience } from '../helpers/patience.js';
import { hasScript, startTerminal } from '../helpers/pty.js';
import { aipEnv, BIN, runAip } from '../helpers/spawn.js';

const { emu, env, run } = useEmulator();
const EXAMPLES = join(import.meta.dirname, '..', '..', 'examples');

/** Starts aip as a process; resolves once its output shows `ready`, or the emulator has seen it ask. */
async function startAip(
  args: string[],
  ready: RegExp | (() => Promise<boolean>),
  extraEnv: Record<string, string> = {},
) {
  const child = spawn(process.execPath, [BIN, ...args], {
    env: aipEnv({ ...env, ...extraEnv }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => {
    stdout += d;
  });
  child.stderr.on('data', (d) => {
    stderr += d;
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  // Polled (its output, or what the emulator has seen), within a bound for a busy machine.
  const deadline = Date.now() + patience(60_000);
  const isReady = async () => (ready instanceof RegExp ? ready.test(stdout + stderr) : ready());
  while (!(await isReady())) {
    if (Date.now() > deadline) throw new Error(`not ready: ${stdout}${stderr}`);
    await new Promise((r) => setTimeout(r, 20));
  }
  return { child, exited, out: () => stdout, err: () => stderr };
}

/** Has the emulator seen a request to this path? */
function asked(path: string): () => Promise<boolean> {
  return async () => (await emu.requests({ path })).length > 0;
}

async function slowJob(): Promise<string> {
  await emu.control('POST', '/job-plans', { steps: 5, step_ms: 3_600_000 });
  const model = await run('models create --name slow --base-model OpenPipe/Qwen3-14B-Instruct -q');
  const job = await run(
    words`jobs create rl --model ${model.stdout.trim()} --file ${join(EXAMPLES, 'groups.jsonl')} -q`,
  );
  await emu.control('POST', '/job-plans', { step_ms: 2 });
  return job.stdout.trim();
}

describe('the config file', () => {
  it('stays whole and keeps every change when 20 processes write it at once', {
    timeout: patience(180_000),
  }, async () => {
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        runAip(['--profile', `p${i}`, 'config', 'set', 'project', `team/p${i}`], { env }),
      ),
    );
    for (const r of results) expect(r.code, r.stderr).toBe(0);
    const file = join(env.AIP_CONFIG_DIR!, 'config.json');
    const config = JSON.parse(readFileSync(file, 'utf8')) as {
      profiles: Record<string, { project: string }>;
    };
    for (let i = 0; i < 20; i++) expect(config.profiles[`p${i}`]?.project).toBe(`team/p${i}`);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    // No lock or temporary file left behind.
    expect(readdirSync(env.AIP_CONFIG_DIR!)).toEqual(['config.json']);
  });

  it('that cannot be written gives a one-line error and changes nothing', async () => {
    const blocked = join(tempConfigDir(), 'not-a-directory');
    writeFileSync(blocked, 'a file where the directory should be');
    const r = await runAip(['config', 'set', 'project', 'a/b'], {
      env: { AIP_CONFIG_DIR: join(blocked, 'aip') },
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      `error: cannot write ${join(blocked, 'aip', 'config.json')}: a part of its path is not a directory (ENOTDIR)\n`,
    );
    expect(readFileSync(blocked, 'utf8')).toBe('a file where the directory should be');
  });
});

describe('a read-only config directory', () => {
  // Permissions do not stop root, which is what this machine runs the tests as.
  it.skipIf(process.getuid?.() === 0)('is a one-line error, and the file is as it was', async () => {
    const dir = tempConfigDir();
    const file = join(dir, 'config.json');
    writeFileSync(file, '{"profiles": {}}', { mode: 0o600 });
    chmodSync(dir, 0o500);
    try {
      const r = await runAip(['config', 'set', 'project', 'a/b'], { env: { AIP_CONFIG_DIR: dir } });
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(new RegExp(`^error: cannot write ${file}: permission denied \\(EACCES\\)`));
      expect(readFileSync(file, 'utf8')).toBe('{"profiles": {}}');
    } finally {
      chmodSync(dir, 0o700);
    }
  });
});

describe('SIGINT and SIGTERM in the middle of long commands', () => {
  const signals: Array<[NodeJS.Signals, number, string]> = [
    ['SIGINT', 130, 'interrupted'],
    ['SIGTERM', 143, 'terminated'],
  ];
  for (const [signal, code, word] of signals) {
    it(`${signal}: jobs wait stops (${code}) and says how to resume`, {
      timeout: patience(90_000),
    }, async () => {
      const job = await slowJob();
      const p = await startAip(
        ['jobs', 'wait', job, '--interval', '0.2'],
        asked(`/training/v1/preview/training-jobs/${job}/events`),
      );
      p.child.kill(signal);
      expect(await p.exited).toBe(code);
      expect(p.err()).toContain(`Resume with: aip jobs wait ${job}`);
      expect(p.err()).toMatch(new RegExp(`error: ${word}\\n$`));
    });

    it(`${signal}: events --follow stops (${code}) and says how to resume`, {
      timeout: patience(90_000),
    }, async () => {
      const job = await slowJob();
      const p = await startAip(
        ['events', job, '--follow', '--interval', '0.2'],
        asked(`/training/v1/preview/training-jobs/${job}/events`),
      );
      p.child.kill(signal);
      expect(await p.exited).toBe(code);
      expect(p.err()).toContain(`resume with: aip events ${job} --follow`);
    });

    it(`${signal}: a streamed chat reply stops (${code}), the text so far kept`, {
      timeout: patience(90_000),
    }, async () => {
      await emu.control('POST', '/chat', { token_ms: 200 });
      try {
        const p = await startAip(
          ['chat', '-m', 'openai/gpt-oss-20b', '--stream', 'a long story'],
          /You asked about/,
        );
        p.child.kill(signal);
        expect(await p.exited).toBe(code);
        expect(p.out()).toMatch(/^You asked about[^\n]*\n$/);
        expect(p.err()).toBe(`error: ${word}\n`);
      } finally {
        await emu.control('POST', '/chat', { token_ms: 0 });
      }
    });

    it(`${signal}: traces send stops while sending (${code}), saying what was sent`, {
      timeout: patience(180_000),
    }, async () => {
      const file = join(env.AIP_CONFIG_DIR!, 'spans.jsonl');
      expect((await runAip(['traces', 'generate', '--spans', '3000', '-o', file], { env })).code).toBe(0);
      await emu.fault({ path: '/trace/agents/otel/v1/traces', delay_ms: 60_000, times: 100 });
      // Once the emulator has its first batch (and stalls it), the signal stops the sending.
      const p = await startAip(
        ['traces', 'send', file, '--concurrency', '1'],
        asked('/trace/agents/otel/v1/traces'),
      );
      p.child.kill(signal);
      expect(await p.exited).toBe(code);
      expect(p.out()).toMatch(/^Sent 0 spans of 3,000 \(0\/6 batches/);
    });
  }

  it.runIf(hasScript)(
    'Ctrl-C on a terminal leaves the cursor visible after a progress display',
    { timeout: patience(90_000) },
    async () => {
      const job = await slowJob();
      const term = startTerminal(['jobs', 'wait', job, '--interval', '0.2'], { ...env });
      try {
        await term.waitFor(/queued/);
        term.type('\u0003');
        expect(await term.exited).toBe(130);
        expect(term.screen()).toContain(`Resume with: aip jobs wait ${job}`);
        // A cursor hidden for the progress display is shown again before aip leaves.
        const raw = term.raw();
        expect(raw.lastIndexOf('\u001b[?25h')).toBeGreaterThanOrEqual(raw.lastIndexOf('\u001b[?25l'));
      } finally {
        term.kill();
      }
    },
  );
});

describe('long runs against an emulator that fails one request in ten', () => {
  it('traces send: every span arrives once', { timeout: patience(180_000) }, async () => {
    const file = join(env.AIP_CONFIG_DIR!, 'spans.jsonl');
    expect((await run(['traces', 'generate', '--spans', '5000', '-o', file])).code).toBe(0);
    await emu.fault({
      path: '/trace/agents/otel/v1/traces',
      status: 503,
      retry_after: '0',
      probability: 0.1,
      times: 100_000,
    });
    const r = await run(['--max-retries', '6', 'traces', 'send', file, '--batch-spans', '100', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ accepted: 5000, rejected: 0 });
    const statuses = (await emu.requests({ path: '/trace/agents/otel/v1/traces' })).map((q) => q.status);
    expect(statuses.filter((s) => s === 503).length).toBeGreaterThan(0);
    const stored = (await emu.control('GET', '/spans?limit=10000')).body as {
      total: number;
      data: Array<{ span: { spanId: string } }>;
    };
    expect(stored.total).toBe(5000);
    expect(new Set(stored.data.map((d) => d.span.spanId)).size).toBe(5000);
  });

  it('events --follow: every event once, in order', { timeout: patience(180_000) }, async () => {
    await emu.control('POST', '/job-plans', { steps: 400, step_ms: 2 });
    const model = await run('models create --name load --base-model OpenPipe/Qwen3-14B-Instruct -q');
    const job = (
      await run(
        words`jobs create rl --model ${model.stdout.trim()} --file ${join(EXAMPLES, 'groups.jsonl')} -q`,
      )
    ).stdout.trim();
    await emu.fault({
      path: '/training/v1/preview/training-jobs/*/events',
      status: 503,
      retry_after: '0',
      probability: 0.1,
      times: 100_000,
    });
    const followed = await run(['events', job, '--follow', '--jsonl', '--interval', '0.01', '--limit', '7'], {
      sleepCap: 5,
    });
    expect(followed.code, followed.stderr).toBe(0);
    await emu.control('DELETE', '/faults');
    const all = JSON.parse((await run(['events', job, '--all', '--json'])).stdout) as Array<{
      id: string;
    }>;
    const ids = followed.stdout
      .trim()
      .split('\n')
      .map((l) => (JSON.parse(l) as { id: string }).id);
    expect(ids).toEqual(all.map((e) => e.id));
    expect(all.length).toBeGreaterThan(400);
    const statuses = (await emu.requests({ method: 'GET' })).map((q) => q.status);
    expect(statuses.filter((s) => s === 503).length).toBeGreaterThan(0);
  });
});
