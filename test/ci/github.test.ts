// aip in a simulated GitHub Actions step (runner.ts): what it says to the runner on stderr, read back
// by the runner's own rules, and what it leaves in the outputs and summary files.

import { EventEmitter } from 'node:events';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { commandPath } from '../../src/ci/failure.js';
import { githubActions, SUMMARY_LIMIT } from '../../src/ci/github.js';
import { main } from '../../src/main.js';
import { rememberSecret } from '../../src/output/secrets.js';
import { checkSftFile } from '../../src/validate/sft.js';
import { commandTree, words } from '../helpers/cli.js';
import { TEST_KEY, useEmulator } from '../helpers/emulator.js';
import { fakeIO } from '../helpers/io.js';
import { checkGroups } from '../validate/helpers.js';
import {
  parseOutputs,
  type Runner,
  simulatedRunner,
  type WorkflowCommand,
  workflowCommands,
} from './runner.js';

const t = useEmulator();
const { emu, run } = t;

/** The characters the toolkit escapes, in a file name and in values that reach messages. */
const HOSTILE = '%,:\r\n';

const errors = (stderr: string) => workflowCommands(stderr).filter((c) => c.command === 'error');
const outputs = (runner: Runner) => parseOutputs(readFileSync(runner.outputFile, 'utf8'));
/** What an annotation says, decoded: its properties and message. */
const said = (c: WorkflowCommand) => ({ ...c.properties, message: c.data });

/** The stderr lines that are not workflow commands. */
const plainLines = (stderr: string) =>
  stderr
    .split('\n')
    .filter((line) => line !== '' && !line.startsWith('::'))
    .map((line) => line.replace(/^error: /, '').replace(/^ {2}/, ''));

const example = {
  messages: [
    { role: 'user', content: 'hi' },
    { role: 'assistant', content: 'hello' },
  ],
};

/** An SFT example whose problem message quotes `id` as it is. */
const answersNoCall = (id: string) => ({
  messages: [
    { role: 'user', content: 'q' },
    { role: 'tool', tool_call_id: id, content: 'x' },
    { role: 'assistant', content: 'a' },
  ],
});

function writeLines(file: string, lines: unknown[]): string {
  writeFileSync(file, lines.map((l) => (typeof l === 'string' ? l : JSON.stringify(l))).join('\n'));
  return file;
}

/** main() with stdout and stderr recorded as one sequence of writes, in the order they were made. */
async function runInOrder(argv: string, env: Record<string, string>) {
  const { io, stdout, stderr } = fakeIO({ env });
  const writes: string[] = [];
  for (const stream of [stdout, stderr]) {
    const write = stream.write.bind(stream);
    stream.write = (chunk: string) => {
      writes.push(chunk);
      return write(chunk);
    };
  }
  const code = await main(words(argv), {
    env,
    io,
    sleep: async () => {},
    random: () => 0.5,
    signals: new EventEmitter(),
  });
  return { code, lines: writes.join('').split('\n'), stdout: stdout.text, stderr: stderr.text };
}

describe('on a GitHub Actions runner: the key masked', () => {
  it('::add-mask:: of the key is the first line of all output, and the key is in no other', async () => {
    const runner = simulatedRunner();
    const env = { ...t.env, ...runner.env };
    const created = await runInOrder(
      'models create --name agent --base-model OpenPipe/Qwen3-14B-Instruct',
      env,
    );
    expect(created.code).toBe(0);
    expect(created.lines[0]).toBe(`::add-mask::${TEST_KEY}`);
    // A server's message and a file's content that echo the key are shown masked.
    const file = writeLines(join(runner.workspace, 'train.jsonl'), [answersNoCall(TEST_KEY)]);
    const invalid = await runInOrder(`jobs validate sft ${file}`, env);
    expect(invalid.code).toBe(2);
    expect(invalid.lines[0]).toBe(`::add-mask::${TEST_KEY}`);
    expect(errors(invalid.stderr)[0]!.data).toContain('****cdef');
    for (const r of [created, invalid]) {
      expect(r.lines.slice(1).join('\n')).not.toContain(TEST_KEY);
    }
    expect(readFileSync(runner.outputFile, 'utf8')).not.toContain(TEST_KEY);
  });

  it('masks a key stored in the config file, read from no variable', async () => {
    expect((await run('auth login --with-key', { stdin: `${TEST_KEY}\n` })).code).toBe(0);
    const runner = simulatedRunner();
    const env = { ...t.env, ...runner.env };
    delete (env as Record<string, string | undefined>).AIP_API_KEY;
    const r = await runInOrder('models list', env);
    expect(r.code).toBe(0);
    expect(r.lines[0]).toBe(`::add-mask::${TEST_KEY}`);
    expect(r.lines.filter((line) => line.includes(TEST_KEY))).toHaveLength(1);
  });

  it('says nothing of a key when there is none, nor of the emulator’s public one', async () => {
    const runner = simulatedRunner();
    // An empty variable is no key (run() lays env over the emulator's, which has one).
    const env = { ...runner.env, AIP_API_KEY: '' };
    const r = await run('--profile local jobs validate sft -', { env, stdin: JSON.stringify(example) });
    expect(r.code).toBe(0);
    expect(workflowCommands(r.stderr)).toEqual([]);
  });
});

describe('on a GitHub Actions runner: each offline validation problem as an annotation', () => {
  it('RL: file and line relative to the workspace, message as listed, escapes undone by the runner', async () => {
    const runner = simulatedRunner();
    const name = `groups ${HOSTILE}.jsonl`;
    const text = [
      JSON.stringify({ trajectories: [{ reward: 1, messages_and_choices: [] }] }),
      JSON.stringify({ trajectories: [{ reward: `r${HOSTILE}`, messages_and_choices: [] }] }),
      '{"trajectories": [',
    ].join('\n');
    writeFileSync(join(runner.workspace, name), text);
    const r = await run(['jobs', 'validate', 'rl', join(runner.workspace, name)], { env: runner.env });
    expect(r.code).toBe(2);
    const { checked } = await checkGroups(name, text);
    expect(checked.problemCount).toBe(2);
    const annotations = errors(r.stderr).filter((c) => c.properties.title === 'invalid trajectory group');
    expect(annotations.map(said)).toEqual(
      checked.problems.map((p) => ({
        title: 'invalid trajectory group',
        file: name,
        line: String(p.line),
        message: p.path === undefined ? p.message : `${p.path}: ${p.message}`,
      })),
    );
    // As written: one line each, every character the toolkit escapes escaped.
    for (const code of ['%25', '%2C', '%3A', '%0D', '%0A']) expect(annotations[0]!.raw).toContain(code);
  });

  it('SFT: a message holding %, \\r, \\n, : and , comes back whole', async () => {
    const runner = simulatedRunner();
    const file = writeLines(join(runner.workspace, `train ${HOSTILE}.jsonl`), [
      example,
      answersNoCall(`call${HOSTILE}`),
      { messages: [{ role: 'user', content: 'no answer' }] },
    ]);
    const r = await run(['jobs', 'validate', 'sft', file], { env: runner.env });
    expect(r.code).toBe(2);
    const { checked } = await checkSftFile(file, fakeIO().io);
    const annotations = errors(r.stderr).filter((c) => c.properties.title === 'invalid training example');
    expect(annotations.map(said)).toEqual(
      checked.problems.map((p) => ({
        title: 'invalid training example',
        file: `train ${HOSTILE}.jsonl`,
        line: String(p.line),
        message: `${p.path}: ${p.message}`,
      })),
    );
    expect(annotations[0]!.data).toContain(`call${HOSTILE}`);
    expect(annotations[0]!.raw).toMatch(/call%25,:%0D%0A"/);
  });

  it('traces send: each problem of the file, as the listing gives it, and nothing sent', async () => {
    const runner = simulatedRunner();
    const file = join(runner.workspace, 'spans %,:.jsonl');
    const span = {
      traceId: '5b8efff798038103d269b633813fc60c',
      spanId: `zz${HOSTILE}`,
      name: 'GET /cart',
      startTimeUnixNano: '1700000000000000000',
      endTimeUnixNano: '1700000000500000000',
    };
    const doc = { resourceSpans: [{ resource: {}, scopeSpans: [{ scope: { name: 't' }, spans: [span] }] }] };
    writeLines(file, [doc, doc]);
    const r = await run(['traces', 'send', file], { env: runner.env });
    expect(r.code).toBe(2);
    const listed = plainLines(r.stderr)
      .map((line) => new RegExp(`^${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:(\\d+): (.*)$`).exec(line))
      .filter((m) => m !== null);
    expect(listed).toHaveLength(2);
    expect(
      errors(r.stderr)
        .filter((c) => c.properties.title === 'invalid span')
        .map(said),
    ).toEqual(
      listed.map((m) => ({ title: 'invalid span', file: 'spans %,:.jsonl', line: m[1], message: m[2] })),
    );
    expect(await emu.requests({ method: 'POST', path: '/trace/agents/otel/v1/traces' })).toHaveLength(0);
  });

  it('--config: the problems in the command’s ::error:: annotation, and each on its line of the file', async () => {
    const runner = simulatedRunner();
    expect((await run('models create --name agent --base-model OpenPipe/Qwen3-14B-Instruct -q')).code).toBe(
      0,
    );
    const groups = writeLines(join(runner.workspace, 'groups.jsonl'), [
      {
        trajectories: [{ reward: 1, messages_and_choices: [{ role: 'user', content: 'q' }] }, { reward: 0 }],
      },
    ]);
    const config = join(runner.workspace, 'config.json');
    writeFileSync(
      config,
      `{\n  "learning_rate": ${JSON.stringify(`fast${HOSTILE}`)},\n  "unknown,setting": 1\n}\n`,
    );
    const r = await run(['jobs', 'create', 'rl', '--model', 'agent', '--file', groups, '--config', config], {
      env: runner.env,
    });
    expect(r.code).toBe(2);
    const [annotation, ...more] = errors(r.stderr).filter((c) => c.properties.title === 'aip jobs create rl');
    expect(more).toEqual([]);
    expect(annotation!.properties).toEqual({ title: 'aip jobs create rl' });
    // And each on its own line of the file (validate/config-problems.ts): learning_rate on line 2, the
    // unknown setting on line 3.
    const settings = errors(r.stderr).filter((c) => c.properties.title === 'invalid setting');
    expect(settings.map((c) => [c.properties.file, c.properties.line])).toEqual([
      ['config.json', '2'],
      ['config.json', '3'],
    ]);
    expect(settings[1]!.data).toMatch(/^experimental_config\.unknown,setting: not a setting/);
    expect(annotation!.data.split('\n')).toEqual(plainLines(r.stderr.replace(/\r\n/g, '\n')));
    // The value as the error quotes it (JSON), its % , : escaped on the way and decoded back.
    expect(annotation!.data).toContain(JSON.stringify(`fast${HOSTILE}`));
    expect(annotation!.raw).toContain('fast%25,:');
  });

  it('chat --continue: a transcript’s problems, and nothing sent', async () => {
    const runner = simulatedRunner();
    const file = writeLines(join(runner.workspace, 'notes.jsonl'), [
      { role: 'user', content: 'q' },
      { role: 'robot' },
    ]);
    const r = await run(['chat', '-m', 'openai/gpt-oss-20b', '--continue', file, 'and then?'], {
      env: runner.env,
    });
    expect(r.code).toBe(2);
    expect(errors(r.stderr).map((c) => [c.properties.title, c.properties.file, c.properties.line])).toEqual([
      ['invalid transcript message', 'notes.jsonl', '2'],
      ['aip chat', undefined, undefined],
    ]);
  });

  it('caps the annotations as the listing: the first 50, then one for the rest', async () => {
    const runner = simulatedRunner();
    const bad = { messages: [{ role: 'user', content: 'no answer' }] };
    const file = writeLines(join(runner.workspace, 'train.jsonl'), Array(60).fill(bad));
    const r = await run(['jobs', 'validate', 'sft', file], { env: runner.env });
    const annotations = errors(r.stderr).filter((c) => c.properties.title === 'invalid training example');
    expect(annotations).toHaveLength(51);
    expect(annotations.slice(0, 50).map((a) => a.properties.line)).toEqual(
      Array.from({ length: 50 }, (_, i) => String(i + 1)),
    );
    expect(said(annotations[50]!)).toEqual({
      title: 'invalid training example',
      file: 'train.jsonl',
      message: '… and 10 more problems',
    });
  });

  it('a file outside the workspace keeps the path it was given', async () => {
    const runner = simulatedRunner();
    const file = writeLines(join(t.dir, 'train.jsonl'), [{ messages: [] }]);
    const r = await run(['jobs', 'validate', 'sft', file], { env: runner.env });
    expect(errors(r.stderr)[0]!.properties.file).toBe(file);
  });
});

describe('on a GitHub Actions runner: a command’s error as one annotation', () => {
  it('titled with the command, saying what the error line says; the exit code unchanged', async () => {
    const runner = simulatedRunner();
    const missing = await run('jobs get 00000000-0000-4000-8000-000000000000', { env: runner.env });
    expect(missing.code).toBe(3);
    expect(errors(missing.stderr).map(said)).toEqual([
      { title: 'aip jobs get', message: plainLines(missing.stderr).join('\n') },
    ]);
    const usage = await run('jobs get', { env: runner.env });
    expect(usage.code).toBe(2);
    expect(errors(usage.stderr).map(said)).toEqual([
      { title: 'aip jobs get', message: "missing required argument 'job'" },
    ]);
  });

  it('says nothing for help or the version', async () => {
    const runner = simulatedRunner();
    for (const argv of ['jobs --help', '--version']) {
      const r = await run(argv, { env: runner.env });
      expect(r.code).toBe(0);
      expect(errors(r.stderr)).toEqual([]);
    }
  });
});

describe('on a GitHub Actions runner: step outputs', () => {
  it('models create: model-id', async () => {
    const runner = simulatedRunner();
    const r = await run('models create --name agent --base-model OpenPipe/Qwen3-14B-Instruct -q', {
      env: runner.env,
    });
    expect(r.code).toBe(0);
    expect(outputs(runner)).toEqual([['model-id', r.stdout.trim()]]);
  });

  it('traces send: spans-accepted and spans-rejected, also when the platform rejects some', async () => {
    const runner = simulatedRunner();
    const file = join(t.dir, 'spans.jsonl');
    expect((await run(['traces', 'generate', '--spans', '10', '-o', file])).code).toBe(0);
    expect((await run(['traces', 'send', file], { env: runner.env })).code).toBe(0);
    expect(outputs(runner)).toEqual([
      ['spans-accepted', '10'],
      ['spans-rejected', '0'],
    ]);
    await emu.fault({
      path: '/trace/agents/otel/v1/traces',
      status: 200,
      body: { accepted_spans: 7, rejected_spans: 3, error_message: 'span too old' },
      times: 1,
    });
    expect((await run(['traces', 'send', file], { env: runner.env })).code).toBe(1);
    // Appended after the first step's: the later value of a name is the one the runner keeps.
    expect(outputs(runner).slice(2)).toEqual([
      ['spans-accepted', '7'],
      ['spans-rejected', '3'],
    ]);
  });
});

describe('--ci', () => {
  const create = 'models create --name agent --base-model OpenPipe/Qwen3-14B-Instruct --return-existing -q';
  const badSft = (runner: Runner) => writeLines(join(runner.workspace, 'train.jsonl'), [{ messages: [] }]);

  it('--ci none on a runner: no workflow command, no output, no summary', async () => {
    const runner = simulatedRunner();
    for (const argv of [create, `jobs validate sft ${badSft(runner)}`, 'jobs get nope']) {
      const r = await run(`--ci none ${argv}`, { env: runner.env });
      expect(workflowCommands(r.stderr)).toEqual([]);
      expect(r.stderr).not.toContain('::');
    }
    // Given after the command's name, as any global option may be.
    const r = await run(`${create} --ci none`, { env: runner.env });
    expect(r.code).toBe(0);
    expect(readFileSync(runner.outputFile, 'utf8')).toBe('');
    expect(readFileSync(runner.summaryFile, 'utf8')).toBe('');
  });

  it('--ci github off a runner: annotations and outputs, but no ::add-mask:: (nothing would act on it)', async () => {
    const runner = simulatedRunner();
    const { GITHUB_ACTIONS: _, ...offRunner } = runner.env;
    const created = await run(`--ci github ${create}`, { env: offRunner });
    expect(created.code).toBe(0);
    expect(outputs(runner)).toEqual([['model-id', created.stdout.trim()]]);
    const invalid = await run(`jobs validate sft ${badSft(runner)} --ci github`, { env: offRunner });
    expect(errors(invalid.stderr).map((c) => c.properties.title)).toEqual([
      'invalid training example',
      'aip jobs validate sft',
    ]);
    for (const r of [created, invalid]) {
      expect(workflowCommands(r.stderr).filter((c) => c.command === 'add-mask')).toEqual([]);
      expect(r.stderr).not.toContain(TEST_KEY);
    }
  });

  it('GITHUB_ACTIONS other than "true" is not a runner', async () => {
    const runner = simulatedRunner();
    const r = await run(`jobs validate sft ${badSft(runner)}`, {
      env: { ...runner.env, GITHUB_ACTIONS: '1' },
    });
    expect(r.code).toBe(2);
    expect(workflowCommands(r.stderr)).toEqual([]);
  });
});

describe('on a GitHub Actions runner: a file that cannot be written', () => {
  const create = 'models create --name agent --base-model OpenPipe/Qwen3-14B-Instruct -q';

  it('GITHUB_OUTPUT a directory, or under a file: a warning, and the command’s result and exit code stand', async () => {
    const runner = simulatedRunner();
    const directory = join(runner.workspace, 'outputs');
    mkdirSync(directory);
    const underFile = join(runner.outputFile, 'x');
    for (const [target, reason] of [
      [directory, 'it is a directory (EISDIR)'],
      [underFile, 'a part of its path is not a directory (ENOTDIR)'],
    ] as const) {
      const r = await run(`${create} --return-existing`, { env: { ...runner.env, GITHUB_OUTPUT: target } });
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(/^[0-9a-f-]{36}\n$/);
      expect(r.stderr).toBe(
        `::add-mask::${TEST_KEY}\nwarning: cannot write the step outputs to ${target}: ${reason}\n`,
      );
    }
  });

  it.skipIf(process.getuid?.() === 0)('GITHUB_OUTPUT read-only: a warning, exit 0', async () => {
    const runner = simulatedRunner();
    chmodSync(runner.outputFile, 0o444);
    const r = await run(create, { env: runner.env });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(
      `warning: cannot write the step outputs to ${runner.outputFile}: permission denied`,
    );
  });
});

describe('GitHubActions: the API commands call', () => {
  const host = (env: Record<string, string>) => {
    const { io, stderr } = fakeIO({ env });
    return { gha: githubActions({ env, io, globals: {} })!, stderr };
  };

  it('appendSummary appends to what the step wrote before, never truncating; controls shown, keys masked', async () => {
    const runner = simulatedRunner();
    writeFileSync(runner.summaryFile, '# Before\n');
    rememberSecret(TEST_KEY);
    const { gha, stderr } = host(runner.env);
    gha.appendSummary('## Job\n\nstate: done\n');
    gha.appendSummary(`model \u001b[2Jx key ${TEST_KEY}`);
    expect(readFileSync(runner.summaryFile, 'utf8')).toBe(
      '# Before\n## Job\n\nstate: done\nmodel ^[[2Jx key ****cdef\n',
    );
    expect(stderr.text).toBe('');
  });

  it('appendSummary keeps the file within the runner’s 1 MiB, which past it shows no summary at all', () => {
    const runner = simulatedRunner();
    // What earlier commands of the step wrote, close to the limit.
    writeFileSync(runner.summaryFile, 'x'.repeat(SUMMARY_LIMIT - 4096));
    const { gha, stderr } = host(runner.env);
    gha.appendSummary('a small part\n');
    gha.appendSummary(`${'y'.repeat(8192)}\n`);
    gha.appendSummary(`${'z'.repeat(8192)}\n`);
    const text = readFileSync(runner.summaryFile, 'utf8');
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(SUMMARY_LIMIT);
    expect(text).toContain('a small part\n');
    expect(text).not.toMatch(/yyyy|zzzz/);
    expect(text.match(/left out: a step's summary holds at most 1 MiB/g)).toHaveLength(1);
    expect(stderr.text).toBe(
      "warning: the step summary is full (1 MiB, the runner's limit): the rest of it is left out\n",
    );
  });

  it('setOutputs writes every value the runner reads back as it was; undefined ones left out', () => {
    const runner = simulatedRunner();
    const { gha } = host(runner.env);
    gha.setOutputs({
      'job-id': 'j-1',
      'last-step': 12,
      checkpoint: undefined,
      note: `two\nlines ${HOSTILE}`,
    });
    gha.setOutputs({ state: 'succeeded' });
    expect(outputs(runner)).toEqual([
      ['job-id', 'j-1'],
      ['last-step', '12'],
      ['note', `two\nlines ${HOSTILE}`],
      ['state', 'succeeded'],
    ]);
  });

  it('without GITHUB_OUTPUT or GITHUB_STEP_SUMMARY (off a runner): nothing written, nothing said', () => {
    const { gha, stderr } = host({ GITHUB_ACTIONS: 'true' });
    gha.setOutputs({ 'job-id': 'j-1' });
    gha.appendSummary('x');
    expect(stderr.text).toBe('');
  });

  it('annotate: warnings and notices, properties in the toolkit’s order, none left empty', () => {
    const runner = simulatedRunner();
    const { gha, stderr } = host(runner.env);
    gha.annotate({
      level: 'warning',
      message: 'slow',
      file: join(runner.workspace, 'a', 'b.json'),
      line: 2,
      col: 5,
    });
    gha.annotate({ level: 'notice', message: 'fyi', title: '' });
    expect(stderr.text).toBe('::warning file=a/b.json,line=2,col=5::slow\n::notice::fyi\n');
  });

  it('is off unless the runner or --ci says so', () => {
    const { io } = fakeIO();
    expect(githubActions({ env: {}, io, globals: {} })).toBeUndefined();
    expect(githubActions({ env: { GITHUB_ACTIONS: 'true' }, io, globals: { ci: 'none' } })).toBeUndefined();
    expect(githubActions({ env: {}, io, globals: { ci: 'github' } })).toBeDefined();
  });
});

describe('commandPath', () => {
  it('names the command the words reach, passing over the values of options', () => {
    const program = commandTree();
    expect(commandPath(program, words('--profile jobs models list --json'))).toBe('aip models list');
    expect(commandPath(program, words('jobs create rl --model models --file f'))).toBe('aip jobs create rl');
    expect(commandPath(program, words('--profile=jobs traces exec -- aip jobs list'))).toBe(
      'aip traces exec',
    );
    expect(commandPath(program, words('nonsense'))).toBe('aip');
  });
});
