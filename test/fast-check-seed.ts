// The seed of the generated (fast-check) cases: fixed by default, AIP_TEST_SEED=<n> replays a run,
// AIP_TEST_SEED=random explores (test/helpers/seed.ts). A failing property prints its seed (fast-check's
// `seed: n`): the same n, to pass back as AIP_TEST_SEED=n.

import fc from 'fast-check';
import { TEST_SEED } from './helpers/seed.js';

fc.configureGlobal({ seed: TEST_SEED });
