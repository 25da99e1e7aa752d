// Issue 28: a line break inside a server's string must not start a row of its own in a table. On a
// terminal every line break in a cell is shown (LF as ^J, CR as ^M, U+2028/U+2029 as <U+2028>, NEL as
// sanitize shows it, M-^E), as sanitize shows controls; piped, each record stays one line.

import { describe, expect, it } from 'vitest';
import { printFields, printTable } from '../../src/output/table.js';
import { useEmulator } from '../helpers/emulator.js';
import { fakeIO } from '../helpers/io.js';

const HOSTILE = [
  'a\nFORGED',
  'b\r\nFORGED',
  'c\rFORGED',
  'd\u2028FORGED',
  'e\u2029FORGED',
  'f\u0085FORGED',
  'g\u000bFORGED',
];

const rows = HOSTILE.map((note, i) => ({ id: `row-${i}`, note }));
const columns = [
  { header: 'id', value: (r: (typeof rows)[number]) => r.id },
  { header: 'note', value: (r: (typeof rows)[number]) => r.note },
  { header: 'again', value: (r: (typeof rows)[number]) => r.note },
];

const lines = (text: string) => text.split('\n').filter((l) => l !== '');

describe('a line break in a cell', () => {
  it('is shown on a terminal, one line per row', () => {
    const { io, stdout } = fakeIO({ stdoutTTY: true, env: { NO_COLOR: '1' } });
    printTable(io, rows, columns);
    const out = lines(stdout.text);
    expect(out).toHaveLength(1 + rows.length);
    for (const [i, line] of out.slice(1).entries()) expect(line.startsWith(`row-${i} `), line).toBe(true);
    expect(stdout.text).not.toMatch(/[\r\u2028\u2029\u0085\u000b]/);
    expect(out[1]).toContain('a^JFORGED');
    expect(out[2]).toContain('b^M^JFORGED');
    expect(out[3]).toContain('c^MFORGED');
    expect(out[4]).toContain('d<U+2028>FORGED');
    expect(out[5]).toContain('e<U+2029>FORGED');
    expect(out[6]).toContain('fM-^EFORGED');
    expect(out[7]).toContain('g^KFORGED');
    // Aligned on what is seen: the third column starts at the same place on every row.
    const starts = out.slice(1).map((l) => l.lastIndexOf(' ') + 1);
    expect(new Set(starts).size).toBe(1);
  });

  it('never starts a record of its own when piped (tab-separated lines)', () => {
    const { io, stdout } = fakeIO({ stdoutTTY: false, env: { FORCE_COLOR: '0' } });
    printTable(io, rows, columns);
    const out = stdout.text.split('\n');
    expect(out.at(-1)).toBe('');
    expect(out.slice(0, -1)).toHaveLength(rows.length);
    for (const [i, line] of out.slice(0, -1).entries()) {
      expect(line.split('\t')).toHaveLength(3);
      expect(line.startsWith(`row-${i}\t`)).toBe(true);
    }
    expect(stdout.text).not.toMatch(/[\r\u2028\u2029\u0085\u000b]/);
  });

  it('is shown in a record of fields too, on a terminal and piped', () => {
    for (const stdoutTTY of [true, false]) {
      const { io, stdout } = fakeIO({ stdoutTTY, env: { NO_COLOR: '1' } });
      printFields(io, [
        ['name', 'x\nforged  row'],
        ['other', 'y\u2028z'],
      ]);
      expect(lines(stdout.text), String(stdoutTTY)).toHaveLength(2);
      expect(stdout.text).toContain('x^Jforged');
    }
  });
});

describe('in the tables aip prints', () => {
  const { emu, run } = useEmulator();

  it('checkpoints list: a metric name with a line feed shows ^J, on a terminal and piped', async () => {
    const model = (
      await run('models create --name agent --base-model OpenPipe/Qwen3-14B-Instruct -q')
    ).stdout.trim();
    await emu.control('POST', `/models/${model}/checkpoints`, {
      count: 3,
      metrics: { 'reward\nSTEP  ID  FORGED': 1, 'loss\u2028x': 2 },
    });
    const all = await run(['checkpoints', 'list', model, '--all', '--json']);
    const count = (JSON.parse(all.stdout) as unknown[]).length;
    expect(count).toBeGreaterThanOrEqual(3);
    for (const [args, stdoutTTY] of [
      [['checkpoints', 'list', model], true],
      [['checkpoints', 'list', model, '--all'], true],
      [['checkpoints', 'list', model, '--all'], false],
    ] as const) {
      const r = await run([...args, '--no-color'], { stdoutTTY });
      expect(r.code, r.stderr).toBe(0);
      const out = lines(r.stdout);
      expect(out, `${args.join(' ')} tty=${stdoutTTY}`).toHaveLength(stdoutTTY ? count + 1 : count);
      expect(out.filter((l) => l.startsWith('STEP'))).toHaveLength(stdoutTTY ? 1 : 0);
      expect(r.stdout).not.toMatch(/[\u2028]/);
      if (stdoutTTY) expect(r.stdout).toContain('reward^JSTEP  ID  FORGED=1');
    }
  });
});
