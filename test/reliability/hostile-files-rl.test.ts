// Hostile trajectory-group files (see hostile-input.ts): none crashes `jobs validate rl`, and `jobs create
// rl` refuses, before any request, every file the validator refuses.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { patience } from '../helpers/patience.js';
import {
  expectHandled,
  file,
  GROUP_LINES,
  hostileFile,
  outcomes,
  RUNS,
  run,
  UUID,
  useHostileInput,
} from './hostile-input.js';

useHostileInput();

describe('hostile files', () => {
  it(`trajectory groups: ${RUNS} files checked, none crashes`, { timeout: patience(900_000) }, async () => {
    await fc.assert(
      fc.asyncProperty(hostileFile(GROUP_LINES), async (content) => {
        const r = await run(['jobs', 'validate', 'rl', file(content, 'jsonl')]);
        expectHandled(r, [0, 2]);
        expect(r.requests).toHaveLength(0);
      }),
      { numRuns: RUNS },
    );
    // Both valid and invalid files were generated.
    expect(outcomes()).toEqual([0, 2]);
  });

  it(`trajectory groups: creating a job from ${RUNS / 5} bad files sends nothing`, {
    timeout: patience(900_000),
  }, async () => {
    await fc.assert(
      fc.asyncProperty(hostileFile(GROUP_LINES), async (content) => {
        const path = file(content, 'jsonl');
        const valid = (await run(['jobs', 'validate', 'rl', path])).code === 0;
        const r = await run(['jobs', 'create', 'rl', '--model', UUID, '--file', path]);
        expectHandled(r, [2, 3]);
        // A file the validator refuses is refused by create too, before any request.
        if (!valid) expect(r.requests).toHaveLength(0);
        else expect(r.requests.map((q) => q.method)).toEqual(['POST']);
      }),
      { numRuns: RUNS / 5 },
    );
  });
});
