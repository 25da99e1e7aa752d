import { describe, expect, it } from 'vitest';
import { isCI, wantsColor } from '../../src/output/io.js';
import { printFields, printTable } from '../../src/output/table.js';
import { runCli } from '../helpers/cli.js';
import { useEmulator } from '../helpers/emulator.js';
import { fakeIO } from '../helpers/io.js';

const ESC = '\u001b[';

describe('colour rules (product.md section 4)', () => {
  it('is on for a terminal and off for a pipe', () => {
    expect(wantsColor({}, true, false)).toBe(true);
    expect(wantsColor({}, false, false)).toBe(false);
  });

  it('is turned off by --no-color, NO_COLOR, FORCE_COLOR=0 and TERM=dumb', () => {
    expect(wantsColor({}, true, true)).toBe(false);
    expect(wantsColor({ NO_COLOR: '1' }, true, false)).toBe(false);
    expect(wantsColor({ FORCE_COLOR: '0' }, true, false)).toBe(false);
    expect(wantsColor({ TERM: 'dumb' }, true, false)).toBe(false);
    // An empty NO_COLOR does not count (no-color.org).
    expect(wantsColor({ NO_COLOR: '' }, true, false)).toBe(true);
  });

  it('can be forced on with FORCE_COLOR, except against an explicit off', () => {
    expect(wantsColor({ FORCE_COLOR: '1' }, false, false)).toBe(true);
    expect(wantsColor({ FORCE_COLOR: '1', NO_COLOR: '1' }, false, false)).toBe(false);
    expect(wantsColor({ FORCE_COLOR: '1' }, false, true)).toBe(false);
  });

  it('reads CI as set unless empty, 0 or false', () => {
    expect(isCI({ CI: 'true' })).toBe(true);
    expect(isCI({ CI: '1' })).toBe(true);
    expect(isCI({ CI: 'false' })).toBe(false);
    expect(isCI({})).toBe(false);
  });
});

describe('spinners', () => {
  it('run only on a sized terminal, outside CI, without --quiet', () => {
    expect(fakeIO({ stderrTTY: true }).io.spinnersEnabled).toBe(true);
    expect(fakeIO({ stderrTTY: false }).io.spinnersEnabled).toBe(false);
    expect(fakeIO({ stderrTTY: true, env: { CI: 'true' } }).io.spinnersEnabled).toBe(false);
    const quiet = fakeIO({ stderrTTY: true });
    quiet.io.configure({ quiet: true });
    expect(quiet.io.spinnersEnabled).toBe(false);
    expect(fakeIO({ stderrTTY: true, columns: 0 }).io.spinnersEnabled).toBe(false);
  });

  it('draw on stderr only, and leave nothing on stdout', async () => {
    const { io, stdout, stderr } = fakeIO({ stderrTTY: true, stdoutTTY: true });
    const result = await io.withSpinner('working', async (spinner) => {
      spinner.update('still working');
      return 42;
    });
    expect(result).toBe(42);
    expect(stderr.text).toContain('working');
    expect(stdout.text).toBe('');
    const ci = fakeIO({ stderrTTY: true, env: { CI: '1' } });
    await ci.io.withSpinner('working', async () => {});
    expect(ci.stderr.text).toBe('');
  });

  it('stop when the work fails, so that nothing keeps drawing (or keeps the process alive)', async () => {
    const { io, stderr } = fakeIO({ stderrTTY: true });
    await expect(
      io.withSpinner('working', async () => {
        await new Promise((r) => setTimeout(r, 100));
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    const drawn = stderr.text.length;
    expect(drawn).toBeGreaterThan(0);
    await new Promise((r) => setTimeout(r, 250));
    expect(stderr.text.length).toBe(drawn);
  });

  it('stop when a command fails under one (health with a bad setting, on a terminal)', async () => {
    const r = await runCli(['health'], { env: { AIP_BASE_URL: 'ftp://nope' }, stderrTTY: true });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('AIP_BASE_URL: expected an http:// or https:// URL');
  });
});

describe('tables', () => {
  const rows = [
    { id: 'a', n: 1, note: 'tab\there' },
    { id: 'longer-id', n: 22, note: null },
  ];
  const columns = [
    { header: 'id', value: (r: (typeof rows)[number]) => r.id },
    {
      header: 'n',
      value: (r: (typeof rows)[number]) => r.n,
      color: (t: string, _r: unknown, s: { green: (x: string) => string }) => s.green(t),
    },
    { header: 'note', value: (r: (typeof rows)[number]) => r.note },
  ];

  it('aligns columns under a bold header on a terminal, colouring after alignment', () => {
    const { io, stdout } = fakeIO({ stdoutTTY: true });
    printTable(io, rows, columns);
    const plain = stdout.text.replace(/\u001b\[\d+m/g, '');
    expect(plain).toBe('ID         N   NOTE\na          1   tab\there\nlonger-id  22\n');
    expect(stdout.text).toContain(`${ESC}1mID${ESC}22m`);
    expect(stdout.text).toContain(`${ESC}32m22${ESC}39m`);
  });

  it('writes TSV without header or colour when piped, keeping one record per line', () => {
    const { io, stdout } = fakeIO({ stdoutTTY: false, env: { FORCE_COLOR: '0' } });
    printTable(io, rows, columns);
    expect(stdout.text).toBe('a\t1\ttab here\nlonger-id\t22\t\n');
  });

  it('prints records as aligned fields, or label<TAB>value lines', () => {
    const tty = fakeIO({ stdoutTTY: true, env: { NO_COLOR: '1' } });
    printFields(tty.io, [
      ['url', 'http://x'],
      ['requests', 3],
    ]);
    expect(tty.stdout.text).toBe('url       http://x\nrequests  3\n');
    const piped = fakeIO();
    printFields(piped.io, [['url', 'http://x']]);
    expect(piped.stdout.text).toBe('url\thttp://x\n');
  });
});

describe('colour end to end', () => {
  const { emu } = useEmulator({ fresh: 'file' });

  it('colours a terminal, and nothing under NO_COLOR, --no-color, TERM=dumb or a pipe', async () => {
    const coloured = await runCli(['health'], { env: emu.env, stdoutTTY: true });
    expect(coloured.stdout).toContain(`${ESC}32mok${ESC}39m`);
    for (const [argv, env, stdoutTTY] of [
      [['health'], { NO_COLOR: '1' }, true],
      [['health', '--no-color'], {}, true],
      [['health'], { TERM: 'dumb' }, true],
      [['health'], { FORCE_COLOR: '0' }, true],
      [['health'], {}, false],
    ] as const) {
      const r = await runCli([...argv], { env: { ...emu.env, ...env }, stdoutTTY });
      expect(r.code).toBe(0);
      expect(r.stdout).not.toContain(ESC);
    }
  });

  it('keeps error messages free of colour when stderr is not a terminal', async () => {
    const r = await runCli(['auth', 'token'], { env: {}, stderrTTY: false });
    expect(r.stderr).not.toContain(ESC);
    const tty = await runCli(['auth', 'token'], { env: {}, stderrTTY: true });
    expect(tty.stderr).toContain(`${ESC}31merror:${ESC}39m`);
  });

  it('prints JSON with --json, or when the output setting says json', async () => {
    const flag = await runCli(['health', '--json'], { env: { ...emu.env, AIP_OUTPUT: 'table' } });
    expect(JSON.parse(flag.stdout)).toHaveLength(3);
    const setting = await runCli(['health'], { env: { ...emu.env, AIP_OUTPUT: 'json' } });
    expect(JSON.parse(setting.stdout)).toHaveLength(3);
    const table = await runCli(['health'], { env: { ...emu.env, AIP_OUTPUT: 'table' } });
    expect(table.stdout.startsWith('training\tok\t')).toBe(true);
  });
});
