// The status line's text made lazily: a reader that reports after every piece of its input must pay
// nothing for it where nothing is shown, and redraw a terminal at most every 50 ms. The clock is the
// test's own (performance.now stubbed), so that no assertion depends on how fast the machine is.

import { afterEach, describe, expect, it, vi } from 'vitest';
import { counted, thousands } from '../../src/output/plural.js';
import { progress } from '../../src/output/progress.js';
import { fakeIO } from '../helpers/io.js';

afterEach(() => {
  vi.restoreAllMocks();
});

describe('progress status text', () => {
  it('never makes text given as a function where there is no status line (a pipe, CI)', () => {
    for (const options of [{ stderrTTY: false }, { stderrTTY: true, env: { CI: 'true' } }]) {
      const { io, stderr } = fakeIO(options);
      const show = progress(io);
      const make = vi.fn(() => 'Reading: 1 span…');
      for (let i = 0; i < 1000; i++) show.status(make);
      show.done();
      expect(make).not.toHaveBeenCalled();
      expect(stderr.text).toBe('');
    }
  });

  it('on a terminal, makes and draws it at most every 50 ms; plain text is drawn every time', () => {
    let now = 1_000;
    vi.spyOn(performance, 'now').mockImplementation(() => now);
    const { io, stderr } = fakeIO({ stderrTTY: true, columns: 80 });
    const show = progress(io);
    const make = vi.fn(() => `Sending: ${thousands(now)} ms`);
    show.status(make);
    now += 49;
    show.status(make);
    expect(make).toHaveBeenCalledTimes(1);
    now += 1;
    show.status(make);
    expect(make).toHaveBeenCalledTimes(2);
    show.status('Reading spans.jsonl…');
    show.status('Reading spans.jsonl…');
    const drawn = stderr.text.split('\r\u001b[2K').filter(Boolean);
    expect(drawn).toEqual([
      'Sending: 1,000 ms',
      'Sending: 1,050 ms',
      'Reading spans.jsonl…',
      'Reading spans.jsonl…',
    ]);
  });
});

describe('counts grouped by thousands', () => {
  it('groups as en-US does on every machine, for any size', () => {
    for (const n of [0, 1, 999, 1000, 12_345, 1_000_000, 123_456_789_012, -4321, 2.5])
      expect(thousands(n)).toBe(n.toLocaleString('en-US', { maximumFractionDigits: 20 }));
    expect(counted(1, 'span')).toBe('1 span');
    expect(counted(12_000, 'span')).toBe('12,000 spans');
    expect(counted(2, 'batch', 'batches')).toBe('2 batches');
  });
});
