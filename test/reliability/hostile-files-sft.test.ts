// Hostile SFT files (see hostile-input.ts): none crashes `jobs validate sft`.

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
  SFT_LINES,
  useHostileInput,
} from './hostile-input.js';

useHostileInput();

describe('hostile files', () => {
  it(`SFT examples: ${RUNS} files checked, none crashes`, { timeout: patience(900_000) }, async () => {
    await fc.assert(
      fc.asyncProperty(hostileFile(SFT_LINES), async (content) => {
        const r = await run(['jobs', 'validate', 'sft', file(content, 'jsonl')]);
        expectHandled(r, [0, 2]);
        expect(r.requests).toHaveLength(0);
      }),
      { numRuns: RUNS },
    );
    expect(outcomes()).toEqual([0, 2]);
  });
});
