// For the completion tests: a config directory holding a config file and local records, as aip writes
// them, and the real shells (bash, zsh, fish) completing a command line with aip's script loaded, aip
// itself (the built bin/aip.js) on their PATH. No shell reads the user's start-up files or HOME.

import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { tempConfigDir } from './cli.js';
import { patience } from './patience.js';
import { aipEnv, BIN } from './spawn.js';

const HOSTED = 'https://api.training.wandb.ai/v1';
const EMULATOR = 'http://127.0.0.1:4010/training/v1';

const model = (id: string, entity: string, project: string, name: string, base_url = HOSTED) => ({
  id,
  entity,
  project,
  name,
  base_model: 'OpenPipe/Qwen3-14B-Instruct',
  base_url,
  created_at: '2025-01-01T00:00:00Z',
});

/**
 * A config directory: a stored profile "staging", the default-model setting, three models and two jobs
 * of the hosted platform (two models of the same name in different projects), and a model and a job of
 * the emulator (the local profile's).
 */
export function writeCompletionFixture(): string {
  const dir = tempConfigDir();
  writeFileSync(
    join(dir, 'config.json'),
    JSON.stringify({ profiles: { default: { 'default-model': 'openai/gpt-oss-20b' }, staging: {} } }),
    { mode: 0o600 },
  );
  writeFileSync(
    join(dir, 'models.json'),
    JSON.stringify({
      models: [
        model('11111111-0000-4000-8000-000000000001', 'team', 'proj', 'agent-001'),
        model('22222222-0000-4000-8000-000000000002', 'team', 'other', 'agent-001'),
        model('33333333-0000-4000-8000-000000000003', 'team', 'proj', 'solo'),
        model('44444444-0000-4000-8000-000000000004', 'local', 'demo', 'emu-model', EMULATOR),
      ],
    }),
  );
  const job = (id: string, kind: string, created_at: string, extra: object = {}, base_url = HOSTED) => ({
    id,
    kind,
    model_id: '11111111-0000-4000-8000-000000000001',
    model: 'team/proj/agent-001',
    base_url,
    created_at,
    ...extra,
  });
  const final = {
    state: 'succeeded',
    step: 3,
    num_sequences: null,
    error_message: null,
    latest_metrics: null,
  };
  writeFileSync(
    join(dir, 'jobs.json'),
    JSON.stringify({
      jobs: [
        job('aaaa1111-0000-4000-8000-000000000001', 'rl', '2025-01-01T00:00:00Z', { final }),
        job('bbbb2222-0000-4000-8000-000000000002', 'sft', '2025-02-01T10:20:00Z'),
        job('cccc3333-0000-4000-8000-000000000003', 'rl', '2025-03-01T00:00:00Z', {}, EMULATOR),
      ],
    }),
  );
  return dir;
}

export function has(shell: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${shell}`]).status === 0;
}

/** A directory with an `aip` that runs the built CLI, and a HOME of the shells' own. */
function shellEnv(configDir: string): Record<string, string> {
  const bin = tempConfigDir();
  writeFileSync(join(bin, 'aip'), `#!/bin/sh\nexec '${process.execPath}' '${BIN}' "$@"\n`, { mode: 0o755 });
  const home = tempConfigDir();
  return aipEnv({
    PATH: `${bin}:${process.env.PATH ?? '/usr/bin:/bin'}`,
    HOME: home,
    AIP_CONFIG_DIR: configDir,
  });
}

export interface Offered {
  values: string[];
  /** value → description, where the shell shows one. */
  described: Record<string, string>;
}

/**
 * What bash offers for `line` (its last word being completed): the script's function called as bash's
 * programmable completion calls it, COMP_WORDS split as bash splits them (at spaces, and around "=";
 * a '…' part kept whole).
 */
export function bashOffers(script: string, configDir: string, line: string, cwd?: string): string[] {
  const file = join(tempConfigDir(), 'aip.bash');
  writeFileSync(file, script);
  const parts = line.match(/'[^']*'|[^\s=']+|=/g) ?? [];
  const typed = line.endsWith(' ') || line.endsWith('=') ? [...parts, ''] : parts;
  // After "=", bash's word is the "=" itself (or the value after it); $2 is what follows the "=".
  const cword = typed.length - 1;
  const current = typed[cword] === '=' ? '' : typed[cword]!;
  const quoted = (w: string) => `'${w.replace(/'/g, `'\\''`)}'`;
  const program = `source ${quoted(file)}
COMP_WORDS=(${typed.map(quoted).join(' ')}); COMP_CWORD=${cword}
_aip aip ${quoted(current)}
printf '%s\\n' "\${COMPREPLY[@]}"`;
  const r = spawnSync('bash', ['--norc', '--noprofile', '-c', program], {
    encoding: 'utf8',
    env: shellEnv(configDir),
    cwd,
  });
  if (r.stderr !== '') throw new Error(`bash: ${r.stderr}`);
  return r.stdout.split('\n').filter(Boolean);
}

/** What fish offers for `line`, by its own `complete -C`, with the descriptions it shows. */
export function fishOffers(script: string, configDir: string, line: string, cwd?: string): Offered {
  const file = join(tempConfigDir(), 'aip.fish');
  writeFileSync(file, script);
  const r = spawnSync('fish', ['--no-config', '-c', `source $argv[1]; complete -C $argv[2]`, file, line], {
    encoding: 'utf8',
    env: shellEnv(configDir),
    cwd,
  });
  if (r.stderr !== '' || r.status !== 0) throw new Error(`fish: ${r.status} ${r.stderr}`);
  return offered(
    r.stdout
      .split('\n')
      .filter(Boolean)
      .map((l) => l.split('\t') as [string, string?]),
  );
}

function offered(pairs: Array<[string, string?]>): Offered {
  const values = [...new Set(pairs.map(([value]) => value))];
  const described = Object.fromEntries(pairs.filter(([, d]) => d).map(([v, d]) => [v, d!]));
  return { values, described };
}

/** The zsh driver (see the script): zpty, compinit, a TAB per line, compadd's arguments printed. */
const ZSH_DRIVER = fileURLToPath(new URL('./zsh-complete.zsh', import.meta.url));

/** What zsh offers for each line, and whether it asked for files (`files`: the _files arguments). */
export function zshOffers(
  script: string,
  configDir: string,
  lines: string[],
): Array<Offered & { files: string | undefined }> {
  const dir = tempConfigDir();
  mkdirSync(join(dir, 'functions'));
  writeFileSync(join(dir, 'functions', '_aip'), script);
  const r = spawnSync('zsh', ['-f', ZSH_DRIVER, join(dir, 'functions'), ...lines], {
    encoding: 'utf8',
    env: shellEnv(configDir),
    // Eleven lines, each running the built aip: killed only if it hangs (test/helpers/patience.ts).
    timeout: patience(120_000),
  });
  if (r.status !== 0) throw new Error(`zsh: ${r.status} ${r.signal} ${r.stderr}`);
  const blocks = r.stdout.split(/^<LINE>.*<END>$/m).slice(1);
  return blocks.map((block) => {
    const pairs = [...block.matchAll(/^<OFFER>(.*)<DESC>(.*)<END>$/gm)].map(
      ([, value, d]): [string, string?] => [
        value!,
        // _describe's display: "value  -- description".
        d?.includes(' -- ') ? d.slice(d.indexOf(' -- ') + 4) : undefined,
      ],
    );
    const files = /^<FILES>(.*)<END>$/m.exec(block)?.[1];
    return { ...offered(pairs.filter(([v]) => v !== '')), files };
  });
}
