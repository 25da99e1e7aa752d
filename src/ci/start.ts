// A command's start on CI, once the global options are known (program.ts, before the action): the
// run's integration is made (validators find it from the IO), and the first thing aip says on a
// GitHub Actions runner is `::add-mask::<key>` for each API key it can see (AIP_API_KEY,
// WANDB_API_KEY, the profile's key in the config file), so that the runner masks it in everything
// logged after: the output of the processes aip starts (`traces exec`) and of later steps included.
// aip itself never prints a key (output/secrets.ts masks them in every write); this is for what aip
// does not write.
//
// Only on a runner (GITHUB_ACTIONS=true), not with --ci github elsewhere: anywhere else nothing acts
// on the line, which would print the key as it is. The emulator's built-in key is public and left out.
// The config file is read without a word: a file that is corrupt, or open to others, is told by the
// command that needs it, in its place. The OS keychain is not asked (Settings without `keychain`):
// this runs before every command, and a command that needs no key must not load a native module or
// reach for a keychain; a runner has no keychain session anyway (no D-Bus session), so a key there is
// in the environment or the file.

import { configFilePath } from '../settings/config-file.js';
import { Settings } from '../settings/resolve.js';
import { type CiHost, githubActions } from './github.js';
import { guardRunnerLines } from './runner-lines.js';

export function startCi(host: CiHost): void {
  const gha = githubActions(host);
  if (!gha) return;
  // With --ci github off a runner too, so that a workflow's output can be tried anywhere (on a runner
  // main.ts did it as the run began).
  guardRunnerLines(host.io);
  if (host.env.GITHUB_ACTIONS !== 'true') return;
  for (const name of ['AIP_API_KEY', 'WANDB_API_KEY']) gha.mask(host.env[name]?.trim());
  try {
    const resolved = new Settings(host.globals, host.env, configFilePath(host.env)).apiKey();
    if (resolved?.kind === 'config') gha.mask(resolved.key);
  } catch {
    // Told by the command, if it needs the key.
  }
}
