// --sandbox (issue 30): a reward command or server that runs model-written code runs confined by
// bubblewrap: it cannot reach a port the test listens on, nor write outside its private directory,
// which it can write and which is removed after it; its limits are set; it leaves nothing running;
// and a well-behaved reward scores the same under --sandbox as without. Where no sandbox can be made
// (no bwrap, bwrap refused, macOS, Windows) --sandbox is refused, exit 2, before anything is sampled.
// The tests that run bwrap are skipped, and say why, where it does not work.

import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors/errors.js';
import { runRewardCommand } from '../../src/rollouts/reward-command.js';
import { rewardServerScorer } from '../../src/rollouts/reward-server.js';
import { findSandbox, type Sandbox } from '../../src/rollouts/sandbox.js';
import { useEmulator } from '../helpers/emulator.js';
import { fakeIO } from '../helpers/io.js';
import { offlineContext } from '../helpers/offline-context.js';
import { tempDir } from '../helpers/temp.js';
import { waitFor } from '../helpers/wait.js';

const LIMITS = { cpuSeconds: 30, memoryMiB: 4096 };

let sandbox: Sandbox | undefined;
let why = '';
try {
  sandbox = findSandbox(LIMITS);
} catch (error) {
  why = (error as Error).message;
}
const skipped = (title: string) => (sandbox ? title : `${title} (skipped: ${why})`);

const refusal = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    return (error as Error).message;
  }
  throw new Error('not refused');
};

describe('where no sandbox can be made', () => {
  it('is refused with the reason and what to do: no bwrap, bwrap refused, macOS, Windows', () => {
    const empty = tempDir();
    expect(refusal(() => findSandbox(LIMITS, { PATH: empty }, 'linux'))).toBe(
      '--sandbox needs bubblewrap (bwrap), not found on PATH: install bubblewrap (apt install bubblewrap, dnf install bubblewrap, pacman -S bubblewrap)',
    );
    const fake = tempDir();
    writeFileSync(join(fake, 'bwrap'), '#!/bin/sh\nexit 1\n', { mode: 0o755 });
    const refused = () => ({ status: 1, stderr: 'bwrap: setting up uid map: Permission denied\n' });
    expect(refusal(() => findSandbox(LIMITS, { PATH: fake }, 'linux', refused))).toMatch(
      /^--sandbox: bubblewrap \(.*\/bwrap\) cannot make a sandbox here \(bwrap: setting up uid map: Permission denied\): .*apt install bubblewrap/,
    );
    expect(refusal(() => findSandbox(LIMITS, { PATH: fake }, 'darwin'))).toMatch(
      /^--sandbox is not supported on macOS yet \(sandbox-exec is not used\)/,
    );
    expect(refusal(() => findSandbox(LIMITS, { PATH: fake }, 'win32'))).toMatch(
      /^--sandbox is not supported on Windows/,
    );
  });
});

describe('a sandboxed reward command', () => {
  let server: Server;
  let port = 0;
  let connections = 0;
  beforeAll(async () => {
    server = createServer((socket) => {
      connections++;
      socket.destroy();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as { port: number }).port;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  /** Scored in the sandbox found, in another (other limits), or unconfined (null). */
  const score = (command: string, confined: Sandbox | null = sandbox ?? null) =>
    runRewardCommand(
      command,
      { reply: 'x' },
      { timeoutMs: 60_000, env: process.env, sandbox: confined ?? undefined },
    );

  /** Prints 1 if it reached the test's port, 0 if not. */
  const reachPort = () => {
    const script = join(tempDir(), 'reach.js');
    writeFileSync(
      script,
      `const s = require('node:net').connect(${port}, '127.0.0.1');
       s.on('connect', () => { console.log(1); s.destroy(); });
       s.on('error', () => console.log(0));`,
    );
    return `"${process.execPath}" "${script}"`;
  };

  it.skipIf(!sandbox)(skipped('cannot reach a port on the host, which it reaches without'), async () => {
    expect(await score(reachPort(), null)).toEqual({ ok: true, scored: { reward: 1 } });
    await waitFor(() => connections === 1, undefined, 'the unconfined connection');
    expect(await score(reachPort())).toEqual({ ok: true, scored: { reward: 0 } });
    expect(connections).toBe(1);
  });

  it.skipIf(!sandbox)(
    skipped('cannot write outside its private directory, which it can write, and which goes after it'),
    async () => {
      const outside = tempDir();
      const command = `echo no > "${outside}/escaped" 2>/dev/null && e=true || e=false
        echo yes > "$TMPDIR/mine" && [ "$(cat "$TMPDIR/mine")" = yes ] && o=true || o=false
        echo "{\\"reward\\": 1, \\"metrics\\": {\\"escaped\\": $e, \\"own\\": $o}}"`;
      expect(await score(command)).toEqual({
        ok: true,
        scored: { reward: 1, metrics: { escaped: false, own: true } },
      });
      expect(readdirSync(outside)).toEqual([]);
      // Unconfined, the same command writes there: the test can see an escape.
      expect(await score(`echo no > "${outside}/escaped" && echo 1`, null)).toMatchObject({ ok: true });
      expect(existsSync(join(outside, 'escaped'))).toBe(true);

      // Its private directory, named on stderr by a command that fails, is removed once it has ended.
      const named = await score('echo "$TMPDIR" >&2; touch "$TMPDIR/left"; exit 1');
      const dir = /exit 1: (\S+)$/.exec((named as { reason: string }).reason)?.[1];
      expect(dir).toMatch(/aip-sandbox-/);
      await waitFor(() => !existsSync(dir!), undefined, 'the private directory removed');
    },
  );

  it.skipIf(!sandbox)(
    skipped('runs with the CPU and memory limits, and leaves nothing running'),
    async () => {
      const limited = { ...sandbox!, cpuSeconds: 7, memoryMiB: 512 };
      const marker = `${process.pid}${Date.now()}`;
      const result = await score(
        `sleep 3600.${marker} & echo "{\\"reward\\": 1, \\"metrics\\": {\\"cpu\\": $(ulimit -t), \\"kib\\": $(ulimit -v)}}"`,
        limited,
      );
      expect(result).toEqual({ ok: true, scored: { reward: 1, metrics: { cpu: 7, kib: 512 * 1024 } } });
      const running = () =>
        readdirSync('/proc')
          .filter((pid) => /^\d+$/.test(pid))
          .some((pid) => {
            try {
              return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(marker);
            } catch {
              return false;
            }
          });
      await waitFor(() => !running(), undefined, 'the background sleep ended');
    },
  );
});

describe('a sandboxed reward server', () => {
  it.skipIf(!sandbox)(
    skipped('cannot reach a port on the host nor write outside, as its private directory it can'),
    async () => {
      let connections = 0;
      const server = createServer((socket) => {
        connections++;
        socket.destroy();
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const { port } = server.address() as { port: number };
      const outside = tempDir();
      const script = join(tempDir(), 'server.js');
      writeFileSync(
        script,
        `const fs = require('node:fs');
        const tryWrite = (file) => { try { fs.writeFileSync(file, 'x'); return true; } catch { return false; } };
        require('node:readline').createInterface({ input: process.stdin }).on('line', (line) => {
          const { id } = JSON.parse(line);
          const s = require('node:net').connect(${port}, '127.0.0.1');
          const answer = (reached) => console.log(JSON.stringify({ id, reward: 1, metrics: {
            reached, escaped: tryWrite('${outside}/escaped'), own: tryWrite(process.env.TMPDIR + '/mine') } }));
          s.on('connect', () => { s.destroy(); answer(true); });
          s.on('error', () => answer(false));
        });`,
      );
      const { io } = fakeIO({ env: { NO_COLOR: '1' } });
      const ctx = offlineContext({ ...process.env, AIP_CONFIG_DIR: tempDir() }, io);
      const command = `"${process.execPath}" "${script}"`;
      const scorer = rewardServerScorer(ctx, command, {}, { closeGraceMs: 200 }, { sandbox });
      try {
        const result = await scorer({ id: 't0', messages: [] }, {}, 'x', new AbortController().signal);
        expect(result).toEqual({
          ok: true,
          scored: { reward: 1, metrics: { reached: false, escaped: false, own: true } },
        });
      } finally {
        await scorer.close?.();
        await new Promise((resolve) => server.close(resolve));
      }
      expect(connections).toBe(0);
      expect(readdirSync(outside)).toEqual([]);
    },
  );
});

describe('rollouts --sandbox', () => {
  const t = useEmulator();
  const { run } = t;
  let tasks: string;
  beforeEach(async () => {
    await run('models create --name agent --base-model OpenPipe/Qwen3-14B-Instruct -q');
    tasks = join(t.dir, 'tasks.jsonl');
    writeFileSync(
      tasks,
      ['Describe a gradient.', 'Name a colour.', 'Count to three.']
        .map((content, i) => JSON.stringify({ id: `t${i}`, messages: [{ role: 'user', content }] }))
        .join('\n'),
    );
  });

  /** What was sampled and how it scored, task by task and sample by sample (groups come as they end). */
  const rewardsOf = (file: string) =>
    readFileSync(file, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line))
      .flatMap((group) => [...group.trajectories, ...(group.exceptions ?? [])])
      .map((tr) => JSON.stringify([tr.metadata, tr.reward, tr.message, tr.messages_and_choices]))
      .sort();

  /** Scores by the reply's length, as a command (one per trajectory) or a server (JSON Lines). */
  const scripts = () => {
    const command = join(t.dir, 'score.js');
    writeFileSync(
      command,
      `let s = ''; process.stdin.on('data', (d) => (s += d)).on('end', () =>
        console.log(JSON.stringify({ reward: (JSON.parse(s).reply.length % 10) / 10, metrics: { task: process.env.AIP_TASK_ID.length } })));`,
    );
    const server = join(t.dir, 'server.js');
    writeFileSync(
      server,
      `require('node:readline').createInterface({ input: process.stdin }).on('line', (line) => {
        const { id, trajectory } = JSON.parse(line);
        console.log(JSON.stringify({ id, reward: (trajectory.reply.length % 10) / 10 }));
      });`,
    );
    return { command: `"${process.execPath}" "${command}"`, server: `"${process.execPath}" "${server}"` };
  };

  const rollouts = async (out: string, ...reward: string[]) => {
    const r = await run(
      ['rollouts', '--model', 'agent', '--tasks', tasks, '-K', '3', '--seed', '7', '-o', out, ...reward],
      { env: { PATH: process.env.PATH ?? '' } },
    );
    expect([r.code, r.stderr]).toEqual([0, expect.stringMatching(/Wrote 3 groups \(9 trajectories\)/)]);
  };

  it.skipIf(!sandbox)(
    skipped('scores a well-behaved --reward-cmd and --reward-server as without it'),
    async () => {
      const { command, server } = scripts();
      const plain = join(t.dir, 'plain.jsonl');
      await rollouts(plain, '--reward-cmd', command);
      const confined = join(t.dir, 'confined.jsonl');
      await rollouts(confined, '--reward-cmd', command, '--sandbox');
      expect(rewardsOf(confined)).toEqual(rewardsOf(plain));

      const served = join(t.dir, 'served.jsonl');
      await rollouts(served, '--reward-server', server);
      const servedConfined = join(t.dir, 'served-confined.jsonl');
      await rollouts(servedConfined, '--reward-server', server, '--sandbox', '--reward-workers', '2');
      expect(rewardsOf(servedConfined)).toEqual(rewardsOf(served));
    },
  );

  it.skipIf(!sandbox)(
    skipped("keeps the keys out of the sandbox: aip's, the reward service's, a copy"),
    async () => {
      const key = t.env.AIP_API_KEY!;
      const probe = join(t.dir, 'probe.js');
      // Says, as metrics, whether anything in its environment holds a key.
      writeFileSync(
        probe,
        `const env = process.env; process.stdin.resume().on('end', () => console.log(JSON.stringify({ reward: 1, metrics: {
        api: 'AIP_API_KEY' in env, reward: 'AIP_REWARD_KEY' in env,
        copy: Object.values(env).some((v) => v.includes(${JSON.stringify(key)})) } })));`,
      );
      const seen = async (...flags: string[]) => {
        const out = join(t.dir, `probe-${flags.length}.jsonl`);
        const r = await run(
          ['rollouts', '--model', 'agent', '--tasks', tasks, '-K', '1', '--seed', '7', '-o', out, ...flags],
          {
            env: {
              PATH: process.env.PATH ?? '',
              AIP_REWARD_KEY: 'reward-service-key-0123',
              MY_COPY: `x${key}x`,
            },
          },
        );
        expect(r.code, r.stderr).toBe(0);
        return readFileSync(out, 'utf8')
          .split('\n')
          .filter(Boolean)
          .flatMap((line) => JSON.parse(line).trajectories.map((tr: { metrics: object }) => tr.metrics));
      };
      const command = `"${process.execPath}" "${probe}"`;
      // Without the sandbox the command sees them (so the probe can tell); with it, none.
      expect(await seen('--reward-cmd', command)).toContainEqual({ api: true, reward: true, copy: true });
      for (const metrics of await seen('--reward-cmd', command, '--sandbox'))
        expect(metrics).toEqual({ api: false, reward: false, copy: false });
    },
  );

  it('is refused, exit 2, before anything is sampled, where there is no bwrap', async () => {
    const out = join(t.dir, 'groups.jsonl');
    const r = await run(
      ['rollouts', '--model', 'agent', '--tasks', tasks, '-o', out, '--reward-cmd', 'echo 1', '--sandbox'],
      { env: { PATH: tempDir() } },
    );
    expect([r.code, r.stderr]).toEqual([2, expect.stringMatching(/--sandbox needs bubblewrap \(bwrap\)/)]);
    expect(existsSync(out)).toBe(false);
    expect(await t.emu.requests({ method: 'POST', path: '/training/v1/chat/completions' })).toEqual([]);
  });

  it('is refused for a reward that runs no command here, and its limits without it', async () => {
    const base = ['rollouts', '--model', 'agent', '--tasks', tasks, '-o', join(t.dir, 'g.jsonl')];
    const exact = await run([...base, '--reward', 'exact', '--sandbox']);
    expect([exact.code, exact.stderr]).toEqual([
      2,
      expect.stringContaining(
        '--sandbox confines a --reward-cmd or --reward-server: --reward runs no command',
      ),
    ]);
    const limit = await run([...base, '--reward-cmd', 'echo 1', '--sandbox-cpu', '5']);
    expect([limit.code, limit.stderr]).toEqual([
      2,
      expect.stringContaining('--sandbox-cpu is a limit of the sandbox: give --sandbox'),
    ]);
  });
});
