import { describe, expect, it } from 'vitest';
import { dollars } from '../../src/output/dollars.js';

describe('dollars', () => {
  it('shows cents from a dollar up, four places down to a cent, and $0 for nothing', () => {
    expect(dollars(0)).toBe('$0');
    expect(dollars(12.345)).toBe('$12.35');
    expect(dollars(1)).toBe('$1.00');
    expect(dollars(0.5)).toBe('$0.5000');
    expect(dollars(0.01)).toBe('$0.0100');
  });

  it('keeps two significant digits below a cent, however small, never $0.0000', () => {
    expect(dollars(0.00999)).toBe('$0.0100');
    expect(dollars(0.0012)).toBe('$0.0012');
    expect(dollars(0.000123)).toBe('$0.00012');
    // One answer of a 14B model: 27 tokens in at $0.05/M, 99 out at $0.22/M.
    expect(dollars((27 * 0.05 + 99 * 0.22) / 1e6)).toBe('$0.000023');
    expect(dollars(5e-8)).toBe('$0.000000050');
  });

  it('never prints an exponent, nor zero for what was not free', () => {
    for (let exponent = -12; exponent <= 3; exponent++) {
      for (const mantissa of [1, 2.5, 9.99]) {
        const text = dollars(mantissa * 10 ** exponent);
        expect(text).toMatch(/^\$\d+\.\d+$/);
        expect(Number(text.slice(1))).toBeGreaterThan(0);
      }
    }
  });
});
