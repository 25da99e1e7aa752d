// bin/aip.js as a real process.

import { spawn, spawnSync } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempConfigDir } from '../helpers/cli.js';
import { useEmulator } from '../helpers/emulator.js';
import { patience } from '../helpers/patience.js';
import { aipEnv, BIN, runAip, startAip } from '../helpers/spawn.js';

const VERSION = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

const { emu } = useEmulator({ fresh: 'file' });

describe('bin/aip.js', () => {
  it('prints the version (the fast path and commander agree)', async () => {
    for (const args of [['--version'], ['-V'], ['--no-color', '--version']]) {
      const r = await runAip(args);
      expect(r).toMatchObject({ code: 0, stdout: `${VERSION}\n`, stderr: '' });
    }
  });

  it('prints help on stdout and exits 0; a bare noun is a usage error', async () => {
    const help = await runAip(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^Usage: aip \[options\] \[command\]/);
    const bare = await runAip(['auth']);
    expect(bare.code).toBe(2);
    expect(bare.stdout).toBe('');
    expect(bare.stderr).toContain('Usage: aip auth [options] [command]');
  });

  it('runs a command against the emulator and exits with its status', async () => {
    const ok = await runAip(['health', '--json'], { env: { ...emu.env, AIP_CONFIG_DIR: tempConfigDir() } });
    expect(ok.code).toBe(0);
    expect(JSON.parse(ok.stdout).map((c: { ok: boolean }) => c.ok)).toEqual([true, true, true]);
    const noKey = await runAip(['auth', 'status'], { env: { AIP_CONFIG_DIR: tempConfigDir() } });
    expect(noKey.code).toBe(4);
  });

  it('writes the config file with mode 0600 from a real process', async () => {
    const dir = tempConfigDir();
    const r = await runAip(['auth', 'login', '--with-key'], {
      env: { ...emu.env, AIP_API_KEY: '', AIP_CONFIG_DIR: dir },
      stdin: emu.key,
    });
    expect(r.code).toBe(0);
    expect(statSync(join(dir, 'config.json')).mode & 0o777).toBe(0o600);
  });

  it('stays quiet when its output pipe closes before it writes', async () => {
    // The reading end is closed at once, long before aip starts writing: every write gets EPIPE.
    const child = spawn(process.execPath, [BIN, 'help', 'environment'], {
      env: aipEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout.destroy();
    let stderr = '';
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    const code = await new Promise((resolve) => child.on('close', resolve));
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
  });
});

describe.runIf(spawnSync('sh', ['-c', 'command -v script']).status === 0)(
  'on a real terminal (util-linux script)',
  () => {
    it('auth login prompts without echoing the key, and stores it', async () => {
      const dir = tempConfigDir();
      const { AIP_API_KEY: _key, ...urls } = emu.env;
      const child = spawn('script', ['-qec', `"${process.execPath}" "${BIN}" auth login`, '/dev/null'], {
        env: aipEnv({ ...urls, AIP_CONFIG_DIR: dir }),
        stdio: ['pipe', 'pipe', 'pipe'],
      });
      // A login that hangs is ended, so that the test fails rather than the file.
      const killer = setTimeout(() => child.kill('SIGKILL'), patience(60_000));
      let screen = '';
      child.stdout.on('data', (d) => {
        screen += d;
        if (screen.endsWith('API key: ')) child.stdin.write(`${emu.key}\r`);
      });
      const code = await new Promise((resolve) => child.on('exit', resolve));
      clearTimeout(killer);
      expect(code).toBe(0);
      expect(screen).toContain('Logged in: key ****cdef saved to profile "default"');
      expect(screen).not.toContain(emu.key);
      expect(JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')).profiles.default['api-key']).toBe(
        emu.key,
      );
    });
  },
);

describe('aip emulator as a process', () => {
  it('runs in the foreground until SIGTERM, printing where it listens', async () => {
    const dir = tempConfigDir();
    const { child, match } = await startAip(
      ['emulator', '--port', '0', '--ephemeral'],
      { AIP_CONFIG_DIR: dir },
      /listening on (http:\/\/127\.0\.0\.1:\d+)/,
    );
    const origin = match[1]!;
    const res = await fetch(`${origin}/training/v1/health`);
    expect(await res.json()).toEqual({ status: 'ok' });
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  });

  // Seven processes, two of them emulators started in the background: ~2 s on a quiet machine, 25 s
  // on a busy one (test/helpers/patience.ts).
  it('--detach starts it in the background; status and stop find it', {
    timeout: patience(180_000),
  }, async () => {
    const env = { AIP_CONFIG_DIR: tempConfigDir() };
    const started = await runAip(['emulator', '--detach', '--port', '0', '--ephemeral', '--json'], { env });
    const state = JSON.parse(started.stdout || '{}') as { pid: number; origin: string; port: number };
    try {
      expect(started.code).toBe(0);
      expect(state.origin).toBe(`http://127.0.0.1:${state.port}`);
      const status = await runAip(['emulator', 'status', '--json'], { env });
      expect(status.code).toBe(0);
      expect(JSON.parse(status.stdout)).toMatchObject({
        running: true,
        url: state.origin,
        pid: state.pid,
        detached: true,
      });

      const again = await runAip(['emulator', '--detach', '--port', '0', '--ephemeral', '--json'], { env });
      expect(JSON.parse(again.stdout).pid).toBe(state.pid);
      expect(again.stderr).toContain('already running');

      const health = await runAip(['health', '--json'], {
        env: {
          ...env,
          AIP_BASE_URL: `${state.origin}/training/v1`,
          AIP_INFERENCE_URL: `${state.origin}/inference/v1`,
          AIP_TRACE_URL: `${state.origin}/trace`,
        },
      });
      expect(health.code).toBe(0);
    } finally {
      const stop = await runAip(['emulator', 'stop'], { env });
      expect(stop.code).toBe(0);
      expect(stop.stderr).toBe(`Stopped the emulator at ${state.origin} (pid ${state.pid})\n`);
    }
    expect(() => process.kill(state.pid, 0)).toThrow();
    // status may still find another emulator on the default port (a developer's); never this one.
    const after = await runAip(['emulator', 'status', '--json'], { env });
    if (after.code === 0) expect(JSON.parse(after.stdout).pid).not.toBe(state.pid);
    else
      expect(after).toMatchObject({
        code: 1,
        stderr:
          'error: no emulator is running on http://127.0.0.1:4010: start one with aip emulator --detach (or give the --port of one)\n',
      });
    const stopAgain = await runAip(['emulator', 'stop'], { env });
    expect(stopAgain).toMatchObject({ code: 0, stderr: 'No detached emulator is running\n' });
  });

  it('reports a port already in use', async () => {
    const r = await runAip(['emulator', '--ephemeral', '--port', String(emu.port)], {
      env: { AIP_CONFIG_DIR: tempConfigDir() },
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      `error: port ${emu.port} on 127.0.0.1 is already in use: is an emulator running (aip emulator status)? Or pick another with --port\n`,
    );
    const detached = await runAip(['emulator', '--detach', '--ephemeral', '--port', String(emu.port)], {
      env: { AIP_CONFIG_DIR: tempConfigDir() },
    });
    expect(detached.code).toBe(1);
    expect(detached.stderr).toMatch(
      /^error: the emulator did not start: port \d+ on 127\.0\.0\.1 is already in use/,
    );
  });
});
