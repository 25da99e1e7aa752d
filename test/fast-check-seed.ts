// The seed of the generated (fast-check) cases. Locally each run draws new cases, which is how new
// counterexamples are found; in CI (CI set) the cases are the same every run, so a submission is not
// failed by a draw it never saw. AIP_TEST_SEED replays a run: fast-check prints the seed of a failure.

import fc from 'fast-check';

const given = process.env.AIP_TEST_SEED;
const seed = given !== undefined && given !== '' ? Number(given) : process.env.CI ? 20261121 : undefined;
if (seed !== undefined && Number.isInteger(seed)) fc.configureGlobal({ seed });
