// Builds dist/ once per run, for the tests that spawn bin/aip.js (the rest run main() in-process).
import { buildAip } from '../scripts/build.mjs';

export default async function setup(): Promise<void> {
  await buildAip({ quiet: true });
}
