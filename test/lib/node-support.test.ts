// The Node policy doctor reports: 20.19+ runs (20 past its end of life), the lines CI tests are
// supported, anything older is refused.

import { describe, expect, it } from 'vitest';
import { nodeSupport } from '../../src/lib/node-support.js';

describe('nodeSupport', () => {
  it.each([
    ['18.20.4', 'too-old'],
    ['20.0.0', 'too-old'],
    ['v20.18.3', 'too-old'],
    ['20.19.0', 'end-of-life'],
    ['v20.20.2', 'end-of-life'],
    ['22.0.0', 'supported'],
    ['22.23.3', 'supported'],
    ['24.21.0', 'supported'],
    ['25.1.0', 'supported'],
    ['26.9.0', 'supported'],
    ['27.0.0-pre', 'supported'],
  ])('%s is %s', (version, level) => {
    expect(nodeSupport(version).level).toBe(level);
  });

  it('says since when Node 20 has had no fixes', () => {
    expect(nodeSupport('20.19.5')).toEqual({ level: 'end-of-life', since: '2026-04-30' });
  });
});
