// Hostile OTLP files (see hostile-input.ts): none crashes `traces send`, and one that --dry-run refuses
// sends nothing.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { patience } from '../helpers/patience.js';
import {
  expectHandled,
  file,
  hostileFile,
  outcomes,
  RUNS,
  run,
  SPANS,
  useHostileInput,
} from './hostile-input.js';

useHostileInput();

describe('hostile files', () => {
  it(`OTLP spans: ${RUNS} files, none crashes, and a bad one sends nothing`, {
    timeout: patience(900_000),
  }, async () => {
    const lines = [JSON.stringify(JSON.parse(SPANS))];
    await fc.assert(
      fc.asyncProperty(hostileFile(lines), async (content) => {
        const path = file(content, 'json');
        const valid = (await run(['traces', 'send', '--dry-run', path])).code === 0;
        const r = await run(['traces', 'send', path]);
        // 3: a valid file, sent, and the spy's 404.
        expectHandled(r, [2, 3]);
        if (!valid) expect(r.requests).toHaveLength(0);
        else expect(r.requests.length).toBeGreaterThan(0);
      }),
      { numRuns: RUNS },
    );
    expect(outcomes()).toEqual([2, 103]);
  });
});
