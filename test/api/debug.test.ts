import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { useEmulator } from '../helpers/emulator.js';

const { emu } = useEmulator({ fresh: 'file' });

describe('--debug', () => {
  it('logs each exchange on stderr with the key masked, keeping stdout clean', async () => {
    const r = await runCli(['--debug', 'auth', 'status', '--json'], { env: emu.env });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).api_key.masked).toBe('****cdef');
    expect(r.stderr).toContain(`> GET ${emu.urls.inference}/models`);
    expect(r.stderr).toContain('> authorization: Bearer ****cdef');
    expect(r.stderr).toMatch(/\[\d\] < 200 OK \(\d+ ms\)/);
    expect(r.stderr).toMatch(/< x-request-id: req_\w+/);
    expect(r.stderr).toContain('< {"object":"list"');
    expect(r.stderr + r.stdout).not.toContain(emu.key);
  });

  it('masks the key even where a server echoes it back', async () => {
    await emu.fault({
      path: '/inference/v1/models',
      status: 401,
      body: { error: { message: `invalid key ${emu.key}` } },
    });
    const r = await runCli(['--debug', 'auth', 'login', '--with-key'], { env: emu.env, stdin: emu.key });
    expect(r.code).toBe(4);
    expect(r.stderr).toContain('invalid key ****cdef');
    expect(r.stderr + r.stdout).not.toContain(emu.key);
  });

  it('prints the stack of an error only with --debug', async () => {
    const plain = await runCli(['auth', 'token'], {});
    expect(plain.stderr.trim().split('\n')).toHaveLength(1);
    const debug = await runCli(['--debug', 'auth', 'token'], {});
    expect(debug.stderr).toMatch(/AuthError: no API key for profile "default"\n\s+at /);
  });
});
