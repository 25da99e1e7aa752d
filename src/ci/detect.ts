// Whether this run speaks to GitHub Actions: the one question start-up asks, so that the rest of
// src/ci/ is loaded only on a runner (or with --ci github), and every other run starts as before.

import type { Env, GlobalOptions } from '../settings/global-options.js';

/** --ci wins; unset, GitHub Actions is on exactly when the runner says so (GITHUB_ACTIONS=true). */
export function onGitHubActions(env: Env, ci: GlobalOptions['ci']): boolean {
  if (ci !== undefined) return ci === 'github';
  return env.GITHUB_ACTIONS === 'true';
}

/**
 * Whether a GitHub Actions runner reads what this process writes, whatever --ci says: `--ci none`
 * turns off what aip tells the runner, not the care that nothing from outside tells it anything
 * (runner-lines.ts).
 */
export function runnerReadsOutput(env: Env): boolean {
  return env.GITHUB_ACTIONS === 'true';
}
