// The key never shows: every command of the tree, run with a known key, in every output mode
// (default, --json, --quiet, --debug) and failing (every request answered 500), prints it nowhere,
// and no file aip writes holds it except the 0600 config. The one exception is `aip auth token`,
// whose purpose is to print it. The table below must name every command: a new one must be added.

import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, sep } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { forgetSecrets } from '../../src/output/secrets.js';
import { EMULATOR_DEFAULT_KEY } from '../../src/settings/local-platform.js';
import { commandTree, runCli, tempConfigDir, words } from '../helpers/cli.js';
import { TEST_KEY, useEmulator } from '../helpers/emulator.js';
import { patience } from '../helpers/patience.js';
import { tempDir } from '../helpers/temp.js';

// One config directory and one emulator state for the whole file.
const t = useEmulator({ fresh: 'file' });
const { emu } = t;
let modelId: string;
let jobId: string;
let spansFile: string;
let tasksFile: string;
let merges = 0;
let trainRunDir: string;
const EXAMPLES = join(import.meta.dirname, '..', '..', 'examples');
const BASIC = Buffer.from(`api:${TEST_KEY}`).toString('base64');
const BEARER_HEADER = `Bearer ${TEST_KEY}`;

beforeAll(async () => {
  modelId = (
    await t.run('models create --name secrets --base-model OpenPipe/Qwen3-14B-Instruct -q')
  ).stdout.trim();
  jobId = (
    await t.run(words`jobs create rl --model ${modelId} --file ${join(EXAMPLES, 'groups.jsonl')} -q`)
  ).stdout.trim();
  spansFile = join(t.dir, 'spans.json');
  tasksFile = join(t.dir, 'tasks.jsonl');
  writeFileSync(
    tasksFile,
    '{"messages": [{"role": "user", "content": "What is 2 + 2?"}], "reference": "4"}\n',
  );
  writeFileSync(spansFile, readFileSync(join(import.meta.dirname, '..', 'fixtures', 'spans.json')));
  // A run of one iteration, made here where the model's name is remembered: each run below has a
  // config directory of its own, and resumes it (the plan, and the model's name, are in run.json).
  trainRunDir = join(t.dir, 'train-run');
  const trained = await t.run(
    words`train rl --model secrets --tasks ${tasksFile} --reward exact -K 2 --steps 1 --run-dir ${trainRunDir} --interval 0.01`,
    { sleepCap: 5 },
  );
  if (trained.code !== 0) throw new Error(`train rl: ${trained.stderr}`);
});

/** Every leaf command, with arguments that make it do its work (stdin where it reads one). */
const COMMANDS: Record<string, () => { argv: string[]; stdin?: string }> = {
  'auth login': () => ({ argv: ['auth', 'login', '--with-key'], stdin: `${TEST_KEY}\n` }),
  'auth status': () => ({ argv: ['auth', 'status'] }),
  'auth logout': () => ({ argv: ['auth', 'logout'] }),
  'config get': () => ({ argv: ['config', 'get', 'project'] }),
  'config set': () => ({ argv: ['config', 'set', 'default-model', 'openai/gpt-oss-20b'] }),
  'config unset': () => ({ argv: ['config', 'unset', 'default-model'] }),
  'config list': () => ({ argv: ['config', 'list', '--sources'] }),
  'config path': () => ({ argv: ['config', 'path'] }),
  'config profiles': () => ({ argv: ['config', 'profiles'] }),
  'models list': () => ({ argv: ['models', 'list'] }),
  'models base': () => ({ argv: ['models', 'base'] }),
  'models create': () => ({
    argv: [
      'models',
      'create',
      '--name',
      'secrets-2',
      '--base-model',
      'OpenPipe/Qwen3-14B-Instruct',
      '--return-existing',
    ],
  }),
  'models delete': () => ({ argv: ['models', 'delete', '00000000-0000-4000-8000-000000000000', '--yes'] }),
  'models log': () => ({
    argv: ['models', 'log', modelId, '--split', 'train', '--file', join(EXAMPLES, 'groups.jsonl')],
  }),
  'checkpoints list': () => ({ argv: ['checkpoints', 'list', modelId, '--all'] }),
  // A model's checkpoints, listed by id and overlaid.
  compare: () => ({ argv: ['compare', `model:${modelId}`, '--no-plot'] }),
  'checkpoints delete': () => ({ argv: ['checkpoints', 'delete', modelId, '--steps', '999', '--yes'] }),
  'checkpoints prune': () => ({ argv: ['checkpoints', 'prune', modelId, '--keep-last', '1', '--dry-run'] }),
  'jobs create rl': () => ({
    argv: ['jobs', 'create', 'rl', '--model', modelId, '--file', join(EXAMPLES, 'groups.jsonl'), '--dry-run'],
  }),
  'jobs create sft': () => ({
    argv: [
      'jobs',
      'create',
      'sft',
      '--model',
      modelId,
      '--data-url',
      'wandb-artifact:///local/demo/d:v0',
      '--dry-run',
    ],
  }),
  'jobs validate rl': () => ({ argv: ['jobs', 'validate', 'rl', join(EXAMPLES, 'groups.jsonl')] }),
  'jobs validate sft': () => ({ argv: ['jobs', 'validate', 'sft', join(EXAMPLES, 'train.jsonl')] }),
  'jobs get': () => ({ argv: ['jobs', 'get', jobId] }),
  'jobs wait': () => ({ argv: ['--timeout', '1', 'jobs', 'wait', jobId, '--interval', '0.05'] }),
  'jobs list': () => ({ argv: ['jobs', 'list', '--all-profiles'] }),
  // Each run has a config directory of its own, so nothing is remembered: --stale has nothing to ask.
  'models forget': () => ({ argv: ['models', 'forget', '--stale'] }),
  'jobs forget': () => ({ argv: ['jobs', 'forget', '--stale'] }),
  events: () => ({ argv: ['events', jobId, '--all'] }),
  chat: () => ({ argv: ['chat', '-m', 'openai/gpt-oss-20b', '--usage', '--trace', 'hi'] }),
  // Each run's config directory is new: the model is named by its URI.
  rollouts: () => ({
    argv: [
      'rollouts',
      '--model',
      'wandb-artifact:///local/demo/secrets',
      '--tasks',
      tasksFile,
      '--reward',
      'contains',
      '-K',
      '1',
      '--trace',
    ],
  }),
  eval: () => ({
    argv: [
      'eval',
      '--model',
      'wandb-artifact:///local/demo/secrets',
      '--tasks',
      tasksFile,
      '--reward',
      'contains',
      '--trace',
    ],
  }),
  'train rl': () => ({ argv: ['train', 'rl', '--resume', trainRunDir] }),
  'reward test': () => ({
    argv: [
      'reward',
      'test',
      '--model',
      'wandb-artifact:///local/demo/secrets',
      '--tasks',
      tasksFile,
      '--reward',
      'contains',
      '-K',
      '1',
      '--trace',
    ],
  }),
  // The groups of the train rl run above, as one shard of one.
  'rollouts merge': () => ({
    argv: [
      'rollouts',
      'merge',
      join(trainRunDir, 'iteration-1', 'groups.jsonl'),
      '--tasks',
      tasksFile,
      '-o',
      join(t.dir, `merged-${++merges}.jsonl`),
    ],
  }),
  health: () => ({ argv: ['health'] }),
  doctor: () => ({ argv: ['doctor'] }),
  'system-check': () => ({ argv: ['system-check'] }),
  'emulator status': () => ({ argv: ['emulator', 'status'] }),
  // The history and usage read what the commands above recorded (bodies on: the scan covers them).
  'history list': () => ({ argv: ['history', '--search', 'models'] }),
  'history show': () => ({ argv: ['history', 'show', '1'] }),
  'history on': () => ({ argv: ['history', 'on', '--bodies'] }),
  'history off': () => ({ argv: ['history', 'off'] }),
  'history prune': () => ({ argv: ['history', 'prune', '--older-than', '1d'] }),
  'history path': () => ({ argv: ['history', 'path'] }),
  'usage summary': () => ({ argv: ['usage', '--by', 'command'] }),
  'usage prices': () => ({ argv: ['usage', 'prices'] }),
  'emulator stop': () => ({ argv: ['emulator', 'stop'] }),
  // A directory with no state: nothing is emptied (a developer's emulator on 4010 is not this one).
  'emulator reset': () => ({ argv: ['emulator', 'reset', '--yes', '--state-dir', join(t.dir, 'no-state')] }),
  emulator: () => ({ argv: ['emulator', '--help'] }),
  completion: () => ({ argv: ['completion', 'bash'] }),
  // What a TAB asks (hidden): reads the config and the local records.
  __complete: () => ({ argv: ['__complete', '--', 'chat', '-m', ''] }),
  help: () => ({ argv: ['help', 'environment'] }),
  // A client's session on stdin, answered before the server stops at its end: the tools that describe
  // the key, a request shown with its headers, an error, and the history, each run as its command.
  mcp: () => ({ argv: ['mcp'], stdin: mcpSession() }),
  'traces send': () => ({ argv: ['traces', 'send', spansFile] }),
  'traces generate': () => ({ argv: ['traces', 'generate', '--spans', '3'] }),
  'traces exec': () => ({
    argv: [
      'traces',
      'exec',
      '--',
      process.execPath,
      '-e',
      'process.stdout.write(process.env.AIP_API_KEY ? "" : "")',
    ],
  }),
  'traces span': () => ({ argv: ['traces', 'span', '--name', 'secret-scan'] }),
  // A gateway runs until stopped: its own tests check the key is in none of its output and files
  // (test/traces/gateway/serve.test.ts); here, its help, as for the emulator.
  'traces serve': () => ({ argv: ['traces', 'serve', '--help'] }),
  'traces flush': () => ({ argv: ['traces', 'flush'] }),
  // The emulator's spans (the control route takes the key as a bearer token): traces send's above.
  'traces list': () => ({ argv: ['traces', 'list', '--emulator'] }),
  'traces show': () => ({ argv: ['traces', 'show', '5b8efff7980381', '--emulator'] }),
  'traces tail': () => ({ argv: ['traces', 'tail', '--help'] }),
};
/** JSON-RPC lines, as an MCP client sends them over stdio. */
function mcpSession(): string {
  const call = (id: number, name: string, args: Record<string, unknown> = {}) => ({
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: { name, arguments: args },
  });
  return [
    {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 'secrets', version: '1' },
      },
    },
    { jsonrpc: '2.0', method: 'notifications/initialized' },
    call(2, 'auth_status'),
    call(3, 'config_list', { sources: true }),
    call(4, 'doctor'),
    call(5, 'jobs_create_rl', { model: modelId, file: join(EXAMPLES, 'groups.jsonl'), dry_run: true }),
    call(6, 'jobs_get', { job: jobId }),
    call(7, 'checkpoints_list', { model: 'no-such-model' }),
    { jsonrpc: '2.0', id: 8, method: 'resources/read', params: { uri: 'aip://history' } },
  ]
    .map((message) => `${JSON.stringify(message)}\n`)
    .join('');
}

/** Prints the key on purpose (for `$(aip auth token)`): checked to print it to stdout only. */
const PRINTS_THE_KEY = 'auth token';

const MODES: Array<{ name: string; flags: string[]; fail?: boolean }> = [
  { name: 'default', flags: [] },
  { name: '--json', flags: ['--json'] },
  { name: '--quiet', flags: ['-q'] },
  { name: '--debug', flags: ['--debug'] },
  { name: 'failing, --debug', flags: ['--debug', '--max-retries', '1'], fail: true },
];

function leafCommands(): string[] {
  const program = commandTree();
  const names: string[] = [];
  const walk = (command: typeof program, prefix: string[]) => {
    for (const sub of command.commands) {
      const path = [...prefix, sub.name()];
      // A noun that also runs on its own, with options of its own (aip emulator), is a command too.
      const runs = sub.options.some((o) => o.long !== '--help');
      if (sub.commands.length === 0 || runs) names.push(path.join(' '));
      walk(sub, path);
    }
  };
  walk(program, []);
  return names;
}

function filesUnder(root: string): string[] {
  return readdirSync(root, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name));
}

describe('the key never shows', () => {
  it('the table names every command of the tree', () => {
    expect([...Object.keys(COMMANDS), PRINTS_THE_KEY].sort()).toEqual(leafCommands().sort());
  });

  let scanned = 0;
  /** Exit codes in the modes that should work: the commands did their work, not just fail early. */
  const codes = new Map<string, number>();
  for (const mode of MODES) {
    it(`in any command's output: ${mode.name}`, { timeout: patience(360_000) }, async () => {
      // One history for the mode's commands, with bodies: `history` and `usage` read what the others
      // recorded, and every file of it (the journal, the database) is scanned after each command.
      const dataDir = tempDir('aip-secrets-data-');
      for (const [name, make] of Object.entries(COMMANDS)) {
        await emu.control('DELETE', '/faults');
        // A failing server that echoes the credentials it was sent, in every form.
        if (mode.fail)
          await emu.fault({
            path: '/**',
            status: 500,
            times: 1000,
            body: { detail: `echo ${TEST_KEY} / Basic ${BASIC} / ${BEARER_HEADER}` },
          });
        // Each run must find (and so mask) the key itself: what an earlier run learnt is forgotten.
        forgetSecrets();
        const tempBefore = new Set(readdirSync(tmpdir()));
        const configDir = tempConfigDir();
        const { argv, stdin } = make();
        // The history is kept beside the config, with bodies: what it stores is scanned below too.
        const r = await runCli([...mode.flags, ...argv], {
          env: {
            ...emu.env,
            AIP_CONFIG_DIR: configDir,
            AIP_DATA_DIR: dataDir,
            AIP_PROJECT: 'local/demo',
            AIP_HISTORY: 'bodies',
          },
          stdin,
        });
        for (const text of [r.stdout, r.stderr]) {
          expect(text, `${name} (${mode.name})`).not.toContain(TEST_KEY);
          expect(text, `${name} (${mode.name})`).not.toContain(BASIC);
          expect(text, `${name} (${mode.name})`).not.toContain(BEARER_HEADER);
        }
        for (const path of [...filesUnder(configDir), ...filesUnder(dataDir)]) {
          const content = readFileSync(path, 'utf8');
          if (path.endsWith('config.json')) {
            expect(statSync(path).mode & 0o777).toBe(0o600);
            continue;
          }
          expect(content, `${path} written by ${name}`).not.toContain(TEST_KEY);
        }
        // Nothing left in the temporary directory (the traces spool removes itself).
        const left = readdirSync(tmpdir()).filter((f) => !tempBefore.has(f) && f.startsWith('aip-traces-'));
        expect(left, `${name} (${mode.name})`).toEqual([]);
        if (!mode.fail) codes.set(name, r.code);
        scanned++;
      }
      // The scan above covered a history: the journals were folded into its database by `history`.
      expect(filesUnder(dataDir).map((f) => f.slice(dataDir.length))).toContain(
        `${sep}history${sep}history.db`,
      );
    });
  }

  it('not even in Basic form, from a server that echoes the credentials back', async () => {
    await emu.control('DELETE', '/faults');
    await emu.fault({
      path: '/trace/**',
      status: 403,
      times: 10,
      body: { detail: `credentials not accepted: Basic ${BASIC}` },
    });
    forgetSecrets();
    const r = await runCli(['traces', 'span', '--name', 'x'], {
      env: { ...emu.env, AIP_CONFIG_DIR: tempConfigDir(), AIP_PROJECT: 'local/demo' },
    });
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(/credentials not accepted: Basic \*\*\*\*/);
    expect(r.stderr).not.toContain(BASIC.replace(/=+$/, ''));
    await emu.control('DELETE', '/faults');
  });

  it('except from auth token, which prints it to stdout only, as asked', async () => {
    const r = await runCli(['--debug', 'auth', 'token'], {
      env: { ...emu.env, AIP_CONFIG_DIR: tempConfigDir() },
    });
    expect(r.stdout).toBe(`${TEST_KEY}\n`);
    expect(r.stderr).not.toContain(TEST_KEY);
  });

  it('and the emulator keeps it out of its request record', async () => {
    const records = await emu.requests();
    expect(records.length).toBeGreaterThan(100);
    expect(JSON.stringify(records)).not.toContain(TEST_KEY);
    expect(JSON.stringify(records)).not.toContain(BASIC);
    expect(scanned).toBe(Object.keys(COMMANDS).length * MODES.length);
    // Everything ran to its end, but for the documented outcomes of what it was given: an unknown
    // model and a step it never had (3), and no detached emulator to report on (1), unless one of
    // the machine's own answers on the default port (`npm run demo` leaves one there), which status
    // then reports (0).
    const defaultPortEmulator = await fetch('http://127.0.0.1:4010/_emulator/health', {
      headers: { authorization: `Bearer ${EMULATOR_DEFAULT_KEY}` },
      signal: AbortSignal.timeout(2000),
    }).then(
      (res) => res.ok,
      () => false,
    );
    const expected: Record<string, number> = {
      'models delete': 3,
      'checkpoints delete': 3,
      'emulator status': defaultPortEmulator ? 0 : 1,
    };
    const failed = [...codes].filter(([name, code]) => code !== (expected[name] ?? 0));
    expect(failed).toEqual([]);
  });
});
