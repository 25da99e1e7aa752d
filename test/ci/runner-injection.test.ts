// On a GitHub Actions runner, nothing from outside may speak to the runner: every command that prints
// text it did not write (a job's error, a server's message, model and checkpoint ids, a model's
// reply, streamed or whole, file names and contents in validation messages, a reward command's
// stderr, --jq results and jq's own stderr, progress lines) is run with GITHUB_ACTIONS=true against the
// emulator, in each output mode, with workflow commands in that text: the lines written, read by the
// runner's own rules (test/helpers/runner-commands.ts, strictly), hold aip's own commands only (its
// ::add-mask:: and ::error annotations). The built CLI, run as a process, does the same on real pipes,
// and leaves what goes to a regular file (which no runner reads) exactly as it came.

import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sanitize } from '../../src/output/sanitize.js';
import { type RunOptions, words } from '../helpers/cli.js';
import { TEST_KEY, useEmulator } from '../helpers/emulator.js';
import { jobsEnded } from '../helpers/jobs.js';
import { runnerCommands } from '../helpers/runner-commands.js';
import { aipEnv, BIN, collect } from '../helpers/spawn.js';
import { tempDir } from '../helpers/temp.js';
import { type Runner, simulatedRunner } from './runner.js';

/** Workflow commands on lines of their own, every way the runner reads them: for text with line breaks. */
const LINES = [
  '',
  '::warning::forged',
  '::stop-commands::tok3n',
  '  ::error::forged',
  '\u200b::notice::forged',
  'a ##[warning]forged',
  '#\u200b#[error]forged',
  '\u00a0::WARNING title=t::forged\r::debug::forged\r\n::group::forged',
  '::endgroup::',
].join('\n');
/** The same on one line, for text that has none (an id, a name, a problem's quoted value). */
const ONE_LINE = '::warning::forged ##[error]forged ::add-mask::forged';
/** A reply streamed in pieces that split "::" and "##[" between writes. */
const PIECES = ['\n', ':', ':warning::forged\n#', '#', '[error]forged\r', '::stop-commands::', 'tok3n'];

const MODEL = 'openai/gpt-oss-20b';
const UNKNOWN_JOB = '7d1e9b20-4a3c-4b5d-9e6f-0a1b2c3d4e5f';

const t = useEmulator({ fresh: 'file', runOptions: { sleepCap: 5 } });
const { emu, run } = t;
let runner: Runner;

let failedJob: string;
let groupsFile: string;
let tasksFile: string;
let rewardScript: string;
const hostileFiles: Record<'rl' | 'sft' | 'spans', string> = { rl: '', sft: '', spans: '' };

/** The next jobs fail at step 2 with LINES as their error. */
const failingJobs = async () => {
  await emu.control('POST', '/job-plans', { steps: 3, fail_at_step: 2, error_message: LINES, times: 1 });
};

beforeAll(async () => {
  runner = simulatedRunner();
  await run('models create --name agent --base-model OpenPipe/Qwen3-14B-Instruct -q');
  groupsFile = join(t.dir, 'groups.jsonl');
  writeFileSync(groupsFile, '{"trajectories": [{"reward": 1}, {"reward": 0}]}\n');
  await failingJobs();
  failedJob = (await run(words`jobs create rl --model agent --file ${groupsFile} -q`)).stdout.trim();
  await jobsEnded(emu, [failedJob]);

  // A file named with workflow commands, holding values the problems quote.
  const dir = tempDir('aip-injection-');
  const named = (kind: string) => join(dir, `${kind}${LINES}.jsonl`);
  hostileFiles.rl = named('rl');
  writeFileSync(
    hostileFiles.rl,
    `{"trajectories": [{"reward": ${JSON.stringify(ONE_LINE)}}]}\n{"trajectories": [{"reward": 1, "messages_and_choices": [{"role": ${JSON.stringify(ONE_LINE)}, "content": "x"}]}]}\n`,
  );
  hostileFiles.sft = named('sft');
  writeFileSync(
    hostileFiles.sft,
    `${JSON.stringify({ messages: [{ role: ONE_LINE, content: 'x' }] })}\n${JSON.stringify({
      messages: [
        { role: 'user', content: 'q' },
        { role: 'tool', tool_call_id: ONE_LINE, content: 'x' },
        { role: 'assistant', content: 'a' },
      ],
    })}\n`,
  );
  hostileFiles.spans = named('spans');
  writeFileSync(
    hostileFiles.spans,
    `${JSON.stringify({ resourceSpans: [{ scopeSpans: [{ spans: [{ name: ONE_LINE, traceId: ONE_LINE }] }] }] })}\n`,
  );

  tasksFile = join(t.dir, 'tasks.jsonl');
  writeFileSync(
    tasksFile,
    '{"id": "t1", "messages": [{"role": "user", "content": "What is 1 + 1?"}], "reference": "2"}\n',
  );
  rewardScript = join(t.dir, 'reward.sh');
  writeFileSync(rewardScript, `printf '%s' ${shellQuote(`${LINES}\n${ONE_LINE}`)} >&2\nexit 1\n`);
});

function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/** A server's answer in place of the emulator's (a fault that answers 200): what a lying server says. */
const answer = (path: string, body: unknown, times = 1) =>
  emu.fault({ path, status: 200, body, times }).then(() => undefined);

const completion = (content: string) => ({
  id: 'chatcmpl-1',
  object: 'chat.completion',
  created: 0,
  model: MODEL,
  choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop', logprobs: null }],
  usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
});

function streamed(pieces: string[]): string {
  const chunk = (delta: Record<string, unknown>, finish: string | null) =>
    `data: ${JSON.stringify({
      id: 'chatcmpl-1',
      object: 'chat.completion.chunk',
      created: 0,
      model: MODEL,
      choices: [{ index: 0, delta, finish_reason: finish }],
    })}\n\n`;
  return `${[chunk({ role: 'assistant', content: '' }, null), ...pieces.map((p) => chunk({ content: p }, null)), chunk({}, 'stop')].join('')}data: [DONE]\n\n`;
}

type Mode =
  | 'plain'
  | 'terminal'
  | 'json'
  | 'jsonl'
  | 'jq'
  | 'quiet'
  | '--ci none'
  | '--ci github, off a runner';

interface Case {
  /** The command, as the closing list names it. */
  command: string;
  /** What carries the text from outside. */
  source: string;
  argv: () => string[];
  modes: Mode[];
  /** --jq's expression (a string result) for the jq mode. */
  jq?: string;
  /** Before each run: the server's answers, a job's plan. */
  prepare?: () => Promise<void>;
  /** The exit code (default 0). */
  code?: number;
}

const CASES: Case[] = [
  {
    command: 'jobs wait',
    source: "a failed job's error_message (events)",
    argv: () => words`jobs wait ${failedJob}`,
    modes: ['plain', 'terminal', 'json', 'jq', 'quiet', '--ci none', '--ci github, off a runner'],
    jq: '.error_message',
    code: 5,
  },
  {
    command: 'jobs create rl --wait',
    source: "a failed job's error_message, in the progress lines",
    argv: () => words`jobs create rl --model agent --file ${groupsFile} --wait --interval 0.01`,
    modes: ['plain', 'terminal', 'json', 'quiet'],
    prepare: failingJobs,
    code: 5,
  },
  {
    command: 'jobs get',
    source: "a failed job's error_message",
    argv: () => words`jobs get ${failedJob}`,
    modes: ['plain', 'terminal', 'json', 'jsonl', 'jq'],
    jq: '.error_message',
  },
  {
    command: 'jobs get (jq stderr)',
    source: "a failed job's error_message, through jq's stderr",
    argv: () => words`jobs get ${failedJob} --jq ${'.error_message | stderr | empty'}`,
    modes: ['plain'],
  },
  {
    command: 'events',
    source: "a failed job's error_message",
    argv: () => words`events ${failedJob}`,
    modes: ['plain', 'terminal', 'json', 'jsonl', 'jq'],
    jq: '.[].data.error_message | strings',
  },
  {
    command: 'events --follow',
    source: "a failed job's error_message",
    argv: () => words`events ${failedJob} --follow --interval 0.01`,
    modes: ['plain', 'terminal', 'json', 'jsonl', 'jq'],
    jq: '.data.error_message | strings',
  },
  {
    command: 'jobs get (an error)',
    source: "the server's error detail",
    argv: () => words`jobs get ${UNKNOWN_JOB}`,
    modes: ['plain', 'terminal', 'json', 'quiet'],
    prepare: () =>
      emu.fault({
        path: '/training/v1/preview/training-jobs/**',
        status: 404,
        body: { detail: LINES },
        times: 5,
      }),
    code: 3,
  },
  {
    command: 'models list',
    source: 'model ids and owners from the Inference API',
    argv: () => ['models', 'list'],
    modes: ['plain', 'terminal', 'json', 'jsonl', 'jq'],
    jq: '.[].id',
    prepare: () =>
      answer('/inference/v1/models', {
        object: 'list',
        data: [{ id: ONE_LINE, object: 'model', created: 0, owned_by: ONE_LINE }],
      }),
  },
  {
    command: 'checkpoints list',
    source: 'checkpoint ids and metric names',
    argv: () => ['checkpoints', 'list', 'agent'],
    modes: ['plain', 'terminal', 'json', 'jsonl', 'jq'],
    jq: '.[].id',
    prepare: () =>
      answer('/training/v1/**/checkpoints', {
        object: 'list',
        data: [{ id: ONE_LINE, step: 1, metrics: { [ONE_LINE]: 0.5, reward: 0.5 } }],
        first_id: '',
        last_id: '',
        has_more: false,
      }),
  },
  {
    command: 'chat --no-stream',
    source: "a model's reply, whole",
    argv: () => words`chat -m ${MODEL} --no-stream hi`,
    modes: ['plain', 'terminal', 'json', 'jq', 'quiet'],
    jq: '.choices[0].message.content',
    prepare: () => answer('/inference/v1/chat/completions', completion(LINES)),
  },
  {
    command: 'chat --stream',
    source: "a model's reply, streamed in pieces that split the commands",
    argv: () => words`chat -m ${MODEL} --stream hi`,
    modes: ['plain', 'terminal', 'quiet'],
    prepare: () =>
      emu
        .fault({
          path: '/inference/v1/chat/completions',
          status: 200,
          raw_body: streamed(PIECES),
          content_type: 'text/event-stream',
        })
        .then(() => undefined),
  },
  {
    command: 'chat',
    source: "the emulator's own reply, which quotes the prompt",
    argv: () => words`chat -m ${MODEL} ${'##[warning]forged'}`,
    modes: ['plain', 'terminal', 'json', 'jq'],
    jq: '.choices[0].message.content',
  },
  {
    command: 'chat (an error)',
    source: "the Inference API's error message",
    argv: () => words`chat -m ${MODEL} hi`,
    modes: ['plain', 'json', 'quiet'],
    prepare: () =>
      emu.fault({
        path: '/inference/v1/chat/completions',
        status: 404,
        body: { error: { message: LINES, type: 'not_found_error', code: 'model_not_found' } },
        times: 5,
      }),
    code: 3,
  },
  {
    command: 'rollouts',
    source: "a model's reply (Training API), in the groups on stdout",
    argv: () => words`rollouts --model agent --tasks ${tasksFile} -K 1 --reward exact`,
    modes: ['plain', 'terminal', 'quiet'],
    prepare: () => answer('/training/v1/chat/completions', completion(LINES)),
  },
  {
    command: 'rollouts --reward-cmd',
    source: "a reward command's stderr, in the groups' exceptions",
    argv: () => words`rollouts --model agent --tasks ${tasksFile} -K 2 --reward-cmd ${`sh ${rewardScript}`}`,
    modes: ['plain', 'quiet'],
    code: 1,
  },
  {
    command: 'eval --reward-cmd',
    source: "a reward command's stderr, in the failure",
    argv: () => words`eval --model agent --tasks ${tasksFile} --reward-cmd ${`sh ${rewardScript}`}`,
    modes: ['plain', 'json', 'quiet'],
    code: 1,
  },
  {
    command: 'jobs validate rl',
    source: "a file's name, and values its problems quote",
    argv: () => ['jobs', 'validate', 'rl', hostileFiles.rl],
    modes: ['plain', 'terminal', 'json', 'quiet'],
    code: 2,
  },
  {
    command: 'jobs validate sft',
    source: "a file's name, and values its problems quote",
    argv: () => ['jobs', 'validate', 'sft', hostileFiles.sft],
    modes: ['plain', 'json', 'quiet'],
    code: 2,
  },
  {
    command: 'traces send',
    source: "a file's name, and values its problems quote",
    argv: () => ['traces', 'send', hostileFiles.spans],
    modes: ['plain', 'json', 'quiet'],
    code: 2,
  },
  {
    command: 'a usage error',
    source: 'a word of the command line, quoted before any command runs',
    argv: () => [LINES],
    modes: ['plain'],
    code: 2,
  },
];

/** The flags and terminal of a mode. */
function modeRun(c: Case, mode: Mode): { argv: string[]; options: RunOptions } {
  const env: Record<string, string> = { ...runner.env };
  const options: RunOptions = { env };
  const flags: string[] = [];
  switch (mode) {
    case 'terminal':
      // aip's own colours around the text from outside (FORCE_COLOR: a runner's log shows them).
      Object.assign(options, { stdoutTTY: true, stderrTTY: true });
      env.FORCE_COLOR = '1';
      break;
    case 'json':
    case 'jsonl':
    case 'quiet':
      flags.push(`--${mode}`);
      break;
    case 'jq':
      flags.push('--jq', c.jq!);
      break;
    case '--ci none':
      flags.push('--ci', 'none');
      break;
    case '--ci github, off a runner':
      flags.push('--ci', 'github');
      delete env.GITHUB_ACTIONS;
      delete env.CI;
      break;
  }
  return { argv: [...c.argv(), ...flags], options };
}

/** What aip itself tells the runner: the key's mask, and annotations. */
const OWN_TITLES = /^(aip( [a-z -]+)?|invalid (trajectory group|training example|span))$/;

/** The commands a runner finds, but aip's own (as "line" for a readable failure). */
function foreign(text: string): string[] {
  return runnerCommands(text, { strict: true })
    .filter(
      (c) =>
        !(c.syntax === 'v2' && c.command === 'add-mask' && c.data === TEST_KEY) &&
        !(c.syntax === 'v2' && c.command === 'error' && OWN_TITLES.test(c.properties.title ?? '')),
    )
    .map((c) => `${c.syntax} ${c.command}: ${JSON.stringify(c.line)}`);
}

const covered: string[] = [];
describe('text from outside, on a runner', () => {
  for (const c of CASES) {
    for (const mode of c.modes) {
      it(`${c.command} (${c.source}), ${mode}`, async () => {
        await emu.control('DELETE', '/faults');
        await c.prepare?.();
        const { argv, options } = modeRun(c, mode);
        const r = await run(argv, options);
        expect(r.code, r.stderr).toBe(c.code ?? 0);
        expect(foreign(r.stdout), 'stdout').toEqual([]);
        expect(foreign(r.stderr), 'stderr').toEqual([]);
        // The text came through, shown: the case tested something.
        expect(`${r.stdout}${r.stderr}`).toContain('forged');
        covered.push(`${c.command} × ${mode}`);
      });
    }
  }
  afterAll(() => {
    console.log(`runner injection: ${covered.length} runs\n  ${covered.join('\n  ')}`);
  });
});

/** The built CLI as a step runs it, stdout and stderr each a pipe or a file. */
async function spawnAip(
  args: string[],
  stdio: { stdout?: number; stderr?: number } = {},
  extra: Record<string, string> = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child: ChildProcess = spawn(process.execPath, [BIN, ...args], {
    env: aipEnv({ ...t.env, ...runner.env, ...extra }),
    stdio: ['ignore', stdio.stdout ?? 'pipe', stdio.stderr ?? 'pipe'],
  });
  return collect(child);
}

describe('the built CLI on a runner', () => {
  it('on pipes: a failed job, its error from outside, only aip speaks to the runner', async () => {
    const r = await spawnAip(['jobs', 'wait', failedJob]);
    expect(r.code).toBe(5);
    expect(foreign(r.stdout)).toEqual([]);
    expect(foreign(r.stderr)).toEqual([]);
    expect(r.stderr).toContain(':<U+003A>stop-commands::tok3n');
    expect(runnerCommands(r.stderr).map((c) => c.command)).toEqual(['add-mask', 'error']);
  });

  it('to a regular file, which no runner reads: the reply exactly as it came', async () => {
    const dir = tempDir('aip-injection-file-');
    const toFile = async (name: string, stream: 'stdout' | 'stderr', args: string[]) => {
      const path = join(dir, name);
      const fd = openSync(path, 'w');
      try {
        const r = await spawnAip(args, { [stream]: fd });
        return { ...r, file: readFileSync(path, 'utf8') };
      } finally {
        closeSync(fd);
      }
    };
    await answer('/inference/v1/chat/completions', completion(LINES));
    const reply = await toFile('reply.txt', 'stdout', ['chat', '-m', MODEL, '--no-stream', 'hi']);
    expect(reply.code, reply.stderr).toBe(0);
    // As every write of aip, but for what a terminal would act on (a lone CR: output/sanitize.ts).
    expect(reply.file).toBe(`${sanitize(LINES)}\n`);
    expect(runnerCommands(reply.file).length).toBeGreaterThan(5);
    expect(foreign(reply.stderr)).toEqual([]);

    // The same reply on a pipe is neutralised.
    await answer('/inference/v1/chat/completions', completion(LINES));
    const piped = await spawnAip(['chat', '-m', MODEL, '--no-stream', 'hi']);
    expect(foreign(piped.stdout)).toEqual([]);
    expect(piped.stdout).toContain(':<U+003A>warning::forged');

    // stderr to a file: the error line as the server wrote it (but for what a terminal would act on).
    await emu.fault({
      path: '/training/v1/preview/training-jobs/**',
      status: 404,
      body: { detail: ONE_LINE },
      times: 5,
    });
    const failed = await toFile('stderr.txt', 'stderr', ['jobs', 'get', UNKNOWN_JOB]);
    expect(failed.code).toBe(3);
    expect(failed.file).toContain(`error: ${ONE_LINE}`);
    await emu.control('DELETE', '/faults');
  });
});
