// The fault matrix: every command that talks to the network, against every failure the emulator can
// inject (and a refused connection). Each ends with its documented exit code and a one-line message
// (422 adds its field lines), never a stack trace; idempotent requests retry within their bound; a
// create is never sent twice once it may have reached the server; nothing is passed off as complete.
//
// The cases are here; they run in parts (fault-matrix-<n>.test.ts, each with an emulator of its own),
// so that the parts wait out their timeouts and retry delays side by side. PARTS splits the commands,
// every one in exactly one part: 19 commands, 363 cases in all.

import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli, words } from '../helpers/cli.js';
import { useEmulator } from '../helpers/emulator.js';
import { closedPort } from '../helpers/ports.js';

const EXAMPLES = join(import.meta.dirname, '..', '..', 'examples');
// The model and job of the part that is running, set by its beforeAll: the commands below read them
// when a case runs. A worker runs its files one after another, so a part's cases see its own.
let modelId: string;
let jobId: string;

type Service = 'training' | 'inference' | 'trace';

export interface Command {
  name: string;
  argv: () => string[];
  service: Service;
  method: string;
  /** The route the fault goes on (emulator path glob). */
  path: string;
  /** A POST that creates something: sent once, whatever happens, unless it cannot have arrived. */
  creates?: boolean;
  /** Retried by the openai SDK (its own retry rules: 408, 409, 429, 5xx, connection errors). */
  sdk?: boolean;
  /** What stdout may hold when the command fails (a report that says it is incomplete). */
  failedOutput?: RegExp;
  stdin?: string;
  /** Statuses this command takes as its answer (shown, never retried): system-check's 503. */
  answers?: number[];
}

const COMMANDS: Command[] = [
  {
    // Verifies the key against the inference model list before it stores it.
    name: 'auth login',
    argv: () => ['auth', 'login', '--with-key'],
    stdin: `${'x'.repeat(8)}-matrix-key-0123\n`,
    service: 'inference',
    method: 'GET',
    path: '/inference/v1/models',
  },
  {
    name: 'checkpoints prune',
    argv: () => ['checkpoints', 'prune', modelId, '--keep-last', '5', '--yes'],
    service: 'training',
    method: 'GET',
    path: '/training/v1/preview/models/*/checkpoints',
  },
  {
    name: 'models list',
    argv: () => ['models', 'list'],
    service: 'inference',
    method: 'GET',
    path: '/inference/v1/models',
    sdk: true,
  },
  {
    name: 'models base',
    argv: () => ['models', 'base'],
    service: 'training',
    method: 'GET',
    path: '/training/v1/preview/base-models',
  },
  {
    name: 'models create',
    argv: () => ['models', 'create', '--name', 'another', '--base-model', 'OpenPipe/Qwen3-14B-Instruct'],
    service: 'training',
    method: 'POST',
    path: '/training/v1/preview/models',
    creates: true,
  },
  {
    name: 'models delete',
    argv: () => ['models', 'delete', modelId, '--yes'],
    service: 'training',
    method: 'DELETE',
    path: '/training/v1/preview/models/*',
  },
  {
    name: 'models log',
    argv: () => ['models', 'log', modelId, '--split', 'train', '--file', join(EXAMPLES, 'groups.jsonl')],
    service: 'training',
    method: 'POST',
    path: '/training/v1/preview/models/*/log',
    creates: true,
  },
  {
    name: 'checkpoints list',
    argv: () => ['checkpoints', 'list', modelId],
    service: 'training',
    method: 'GET',
    path: '/training/v1/preview/models/*/checkpoints',
  },
  {
    name: 'checkpoints delete',
    argv: () => ['checkpoints', 'delete', modelId, '--steps', '0', '--yes'],
    service: 'training',
    method: 'DELETE',
    path: '/training/v1/preview/models/*/checkpoints',
  },
  {
    name: 'jobs create rl',
    argv: () => ['jobs', 'create', 'rl', '--model', modelId, '--file', join(EXAMPLES, 'groups.jsonl')],
    service: 'training',
    method: 'POST',
    path: '/training/v1/preview/training-jobs',
    creates: true,
  },
  {
    name: 'jobs create sft',
    argv: () => [
      'jobs',
      'create',
      'sft',
      '--model',
      modelId,
      '--data-url',
      'wandb-artifact:///local/demo/data:v0',
    ],
    service: 'training',
    method: 'POST',
    path: '/training/v1/preview/sft-training-jobs',
    creates: true,
  },
  {
    name: 'jobs get',
    argv: () => ['jobs', 'get', jobId],
    service: 'training',
    method: 'GET',
    path: '/training/v1/preview/training-jobs/*',
  },
  {
    name: 'events',
    argv: () => ['events', jobId],
    service: 'training',
    method: 'GET',
    path: '/training/v1/preview/training-jobs/*/events',
  },
  {
    name: 'chat',
    argv: () => ['chat', '-m', 'openai/gpt-oss-20b', '--no-stream', 'hi'],
    service: 'inference',
    method: 'POST',
    path: '/inference/v1/chat/completions',
    sdk: true,
  },
  {
    name: 'chat --stream',
    argv: () => ['chat', '-m', 'openai/gpt-oss-20b', '--stream', 'hi'],
    service: 'inference',
    method: 'POST',
    path: '/inference/v1/chat/completions',
    sdk: true,
    failedOutput: /^You asked about[^\n]*\n$/,
  },
  {
    name: 'traces send',
    argv: () => ['traces', 'send', join(EXAMPLES, '..', 'test', 'fixtures', 'spans.json')],
    service: 'trace',
    method: 'POST',
    path: '/trace/agents/otel/v1/traces',
    failedOutput: /^Sent 0 spans of 2 \(0\/1 batches/,
  },
  {
    name: 'traces span',
    argv: () => ['traces', 'span', '--name', 'matrix'],
    service: 'trace',
    method: 'POST',
    path: '/trace/agents/otel/v1/traces',
  },
  {
    // The training row of its table says how the check failed; the other two still answer.
    name: 'health',
    argv: () => ['health'],
    service: 'training',
    method: 'GET',
    path: '/training/v1/health',
    failedOutput: /^training\t(error|unreachable)\t.*\ninference\t.*\ntrace\t/,
  },
  {
    // A 503 is its answer (a component failing): told, not retried.
    name: 'system-check',
    argv: () => ['system-check'],
    service: 'training',
    method: 'GET',
    path: '/training/v1/system-check',
    answers: [503],
  },
];

export interface Fault {
  name: string;
  /** Retried (up to --max-retries) by aip's own client, and by the SDK. */
  retried: { aip: boolean; sdk: boolean };
  spec?: Record<string, unknown>;
  /** The service's URL pointed at a port where nothing listens. */
  refused?: boolean;
  code: number;
  /** The first line of the message says this. */
  says: RegExp;
  flags?: string[];
  /** The commands this fault means something for (default: all). */
  only?: string[];
}

const status = (
  s: number,
  code: number,
  says: RegExp,
  extra: Record<string, unknown> = { retry_after: '0' },
): Fault => ({
  name: `${s}${extra.retry_after === undefined ? ' without Retry-After' : ''}`,
  spec: { status: s, ...extra },
  code,
  says,
  // aip retries 408, 429 and 5xx (product.md §5); the openai SDK 409 as well.
  retried: { aip: s === 408 || s === 429 || s >= 500, sdk: s === 408 || s === 409 || s === 429 || s >= 500 },
});
const network = { aip: true, sdk: true };
const never = { aip: false, sdk: false };

const FAULTS: Fault[] = [
  // Input the server refused: nothing was created, as with input refused offline.
  status(400, 2, /HTTP 400/),
  status(401, 4, /Authentication failed.*aip auth login/),
  status(403, 4, /Forbidden/),
  // models base says what a 404 there means: the deployment does not list base models.
  status(404, 3, /Not Found|does not list its trainable base models/),
  status(408, 1, /HTTP 408/),
  status(409, 1, /HTTP 409/),
  status(422, 2, /HTTP 422/),
  status(429, 6, /Concurrency limit reached/),
  status(429, 6, /Concurrency limit reached/, {}),
  status(500, 1, /HTTP 500/),
  status(502, 1, /HTTP 502/),
  status(503, 1, /HTTP 503/),
  status(504, 1, /HTTP 504/),
  {
    name: 'connection refused',
    refused: true,
    code: 1,
    says: /unreachable.*(ECONNREFUSED|could not connect)/,
    retried: network,
  },
  {
    name: 'connection dropped',
    spec: { drop: true },
    code: 1,
    says: /unreachable|connection was closed|ECONNRESET|socket hang up/,
    retried: network,
  },
  {
    // The answer begins, then the connection closes: the SDK has handed the body on by then.
    name: 'reset mid-body',
    spec: { cut_after_bytes: 12 },
    code: 1,
    says: /closed before the answer was complete|stream ended|unreachable|malformed JSON/,
    // The SDK's fetch reads a whole (non-streamed) body before answering: a cut one is retried too.
    retried: { aip: true, sdk: true },
  },
  {
    // A streamed reply cut after its first chunks: the text so far is on stdout, and exit 1 says so.
    name: 'cut SSE stream (400 bytes)',
    spec: { cut_after_bytes: 400 },
    // Only chat's answers are longer than 400 bytes.
    only: ['chat', 'chat --stream'],
    code: 1,
    says: /closed before the answer was complete|stream ended|unreachable|malformed JSON/,
    retried: { aip: true, sdk: true },
  },
  {
    name: 'stall past --timeout',
    spec: { delay_ms: 4000 },
    code: 1,
    says: /timed out|stalled/,
    flags: ['--timeout', '0.4'],
    retried: network,
  },
  {
    name: 'malformed JSON body',
    spec: { status: 200, raw_body: '{"data": [', content_type: 'application/json' },
    code: 1,
    // Streaming chat reads it as a stream that never started: it says so.
    says: /malformed JSON|stream ended before the reply was complete/,
    retried: never,
  },
  {
    name: 'HTML error page',
    spec: {
      status: 502,
      raw_body: '<html><body><h1>502 Bad Gateway</h1></body></html>',
      content_type: 'text/html',
      retry_after: '0',
    },
    code: 1,
    says: /HTTP 502/,
    retried: { aip: true, sdk: true },
  },
];

const MAX_RETRIES = 2;
const serviceEnv: Record<Service, string> = {
  training: 'AIP_BASE_URL',
  inference: 'AIP_INFERENCE_URL',
  trace: 'AIP_TRACE_URL',
};

/**
 * The commands of each part, balanced by how long their cases take (the openai SDK's commands wait
 * out its own retry delays: about 9 s of the whole matrix each).
 */
const PARTS: string[][] = [
  ['chat', 'models create', 'models log', 'jobs create sft'],
  ['models list', 'jobs create rl', 'traces send'],
  ['chat --stream', 'auth login', 'checkpoints prune', 'models base'],
  [
    'models delete',
    'checkpoints list',
    'checkpoints delete',
    'jobs get',
    'events',
    'traces span',
    'health',
    'system-check',
  ],
];

{
  const named = PARTS.flat();
  const missing = COMMANDS.filter((c) => !named.includes(c.name)).map((c) => c.name);
  const unknown = named.filter((n) => !COMMANDS.some((c) => c.name === n));
  if (missing.length > 0 || unknown.length > 0 || new Set(named).size !== named.length) {
    throw new Error(`PARTS must name every command once: missing ${missing}, unknown ${unknown}`);
  }
  // A part with no file would never run.
  const files = readdirSync(import.meta.dirname).filter((f) => /^fault-matrix-\d+\.test\.ts$/.test(f));
  if (files.length !== PARTS.length) {
    throw new Error(`${PARTS.length} parts in PARTS, but ${files.length} fault-matrix-<n>.test.ts files`);
  }
}

/** Registers part `n` (1-based) of the matrix in the calling test file, with an emulator of its own. */
export function faultMatrixPart(n: number): void {
  const names = PARTS[n - 1];
  if (!names) throw new Error(`the fault matrix has ${PARTS.length} parts, not ${n}`);
  // One config directory and one emulator state for all the part's cases.
  const { emu, env, run } = useEmulator({ fresh: 'file' });
  let refusedPort: number;

  beforeAll(async () => {
    const created = await run('models create --name matrix --base-model OpenPipe/Qwen3-14B-Instruct -q');
    modelId = created.stdout.trim();
    // A job that stays queued: every fault case finds it as it was.
    await emu.control('POST', '/job-plans', { steps: 3, step_ms: 3_600_000, times: 1 });
    const job = await run(
      words`jobs create rl --model ${modelId} --file ${join(EXAMPLES, 'groups.jsonl')} -q`,
    );
    jobId = job.stdout.trim();
    await emu.control('POST', '/job-plans', { step_ms: 2 });
    refusedPort = await closedPort();
  });

  describe('fault matrix', () => {
    for (const command of COMMANDS.filter((c) => names.includes(c.name))) {
      describe(command.name, () => {
        for (const fault of FAULTS.filter((f) => !f.only || f.only.includes(command.name))) {
          it(fault.name, async () => {
            await emu.control('DELETE', '/faults');
            await emu.control('DELETE', '/requests');
            const runEnv = { ...env };
            if (fault.refused) runEnv[serviceEnv[command.service]] = `http://127.0.0.1:${refusedPort}/v1`;
            else await emu.fault({ method: command.method, path: command.path, times: 100, ...fault.spec });
            const r = await runCli(
              ['--max-retries', String(MAX_RETRIES), ...(fault.flags ?? []), ...command.argv()],
              { env: runEnv, stdin: command.stdin },
            );

            expect(r.code, r.stderr).toBe(fault.code);
            const lines = r.stderr.trimEnd().split('\n');
            const first = lines.findIndex((l) => l.startsWith('error: '));
            expect(first, r.stderr).toBeGreaterThanOrEqual(0);
            expect(lines[first]).toMatch(fault.says);
            // One line (422: its field lines, indented, under it); retry notices before it; never a stack.
            for (const line of lines.slice(first + 1)) expect(line).toMatch(/^ {2}\S/);
            for (const line of lines.slice(0, first))
              expect(line).toMatch(/^warning: .*retrying in|^Sent|^Stopped/);
            expect(r.stderr).not.toMatch(/\n\s+at .+:\d+:\d+/);
            if (command.failedOutput && r.stdout) expect(r.stdout).toMatch(command.failedOutput);
            else expect(r.stdout).toBe('');

            if (fault.refused) return;
            const sent = (await emu.requests({ method: command.method })).filter((q) =>
              new RegExp(`^${command.path.replace(/\*/g, '[^/]+')}$`).test(q.path),
            );
            // Exactly as many attempts as the rules allow: every retry taken, none beyond the bound,
            // and a create never sent again once it may have arrived.
            const retried = command.sdk ? fault.retried.sdk : fault.retried.aip;
            // A stream cut after it began is not sent again: the reply has started on stdout.
            const streamCut = command.name === 'chat --stream' && fault.spec?.cut_after_bytes !== undefined;
            const answered = command.answers?.includes(fault.spec?.status as number) === true;
            const expected = command.creates || !retried || streamCut || answered ? 1 : MAX_RETRIES + 1;
            expect(sent, `${command.name}: ${fault.name}`).toHaveLength(expected);
          });
        }
      });
    }
  });
}
