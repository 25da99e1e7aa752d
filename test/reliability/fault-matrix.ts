// The fault matrix: every command that talks to the network, against every failure the emulator can
// inject (and a refused connection). Each ends with its documented exit code and a one-line message
// (422 adds its field lines), never a stack trace; nothing is passed off as complete. Issue 29's one
// retry policy, proved per command from the emulator's request record: --max-retries N is exactly
// N + 1 attempts on every path (the openai SDK's commands included: its own retries are off); a
// create is never sent twice once it may have reached the server; a stream is not sent again once
// it began; a 429 in a command that adapts its concurrency is not a retry; a wait's failed poll does
// not end the wait.
//
// The cases are here; they run in parts (fault-matrix-<n>.test.ts, each with an emulator of its own),
// so that the parts wait out their timeouts and retry delays side by side. PARTS splits the commands,
// every one in exactly one part: 31 commands, 583 cases in all. Every verb of the command tree is in
// COMMANDS, OFFLINE or EXCLUDED (checkEveryVerb), so a new verb that sends requests cannot be missed.

import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Command as CommanderCommand } from 'commander';
import { beforeAll, describe, expect, it } from 'vitest';
import { wholeProgram } from '../../src/program.js';
import { commandTree, runCli, words } from '../helpers/cli.js';
import { useEmulator } from '../helpers/emulator.js';
import { patience } from '../helpers/patience.js';
import { closedPort } from '../helpers/ports.js';
import { writeArithmeticTasks } from '../helpers/tasks.js';

const EXAMPLES = join(import.meta.dirname, '..', '..', 'examples');
// The model and jobs of the part that is running, set by its beforeAll: the commands below read them
// when a case runs. A worker runs its files one after another, so a part's cases see its own.
let modelId: string;
/** A job that stays queued: every fault case finds it as it was. */
let jobId: string;
/** A job that has succeeded: a wait on it ends at its first answered poll. */
let doneJobId: string;
/** The part's tasks file (rollouts, eval, train rl): one sum, one sample each, one request. */
let tasksFile: string;
/** train rl's run directories: a new one per case, in the part's config directory (removed with it). */
let runDirs = 0;
let partDir: string;

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
  /**
   * It adapts its concurrency (rollouts, eval, train rl's sampling): a 429 goes to the adaptive limit,
   * which slows down and asks again; that is not a retry and is not counted against --max-retries.
   */
  adapts?: boolean;
  /**
   * A wait that polls (jobs wait, events --follow, train rl's job wait): a failed poll does not end
   * it; its bounds are --timeout (exit 7) and its stall detection. Its job has succeeded (train rl's
   * own job soon does), so the polls that are answered end it.
   */
  waits?: boolean;
  /**
   * Why it sends each request once whatever --max-retries says: doctor, a diagnosis that answers at
   * once (doctor.run.ts; test/commands/doctor-fail-fast.test.ts), the one exception to the policy.
   */
  sendsOnce?: string;
  /** Faults that mean something else for this command, and why (tested where it says). */
  except?: { faults: string[]; why: string };
  /** What stdout may hold when the command fails (a report that says it is incomplete). */
  failedOutput?: RegExp;
  /**
   * How it reports a failed request, when not as an error of the request's own exit code: the exit
   * code, the start of the line that says it (the fault's `says` is matched against that line), and
   * what it says instead of the fault's `says`, when it does.
   */
  reports?: { code: number; line: string; says?: RegExp };
  /** What it says of these faults instead of the fault's `says` (its own words for a 401, say). */
  says?: Record<string, RegExp>;
  /** Lines it writes on stderr before the failure's, beside retry notices (progress, warnings). */
  notices?: RegExp;
  stdin?: string;
  /** Statuses this command takes as its answer (shown, never retried): system-check's 503. */
  answers?: number[];
}

/**
 * The part's model as the Training API names it (the project is useEmulator's): by name, rollouts and
 * eval would look it up in the local record of the base URL, which a refused connection changes.
 */
const MATRIX_ARTIFACT = 'wandb-artifact:///local/demo/matrix';

/**
 * Why a command that works from the local record has no `connection refused` case: the record is kept
 * per base URL, and pointed at a closed port the command finds nothing to ask about (it says so, and
 * sends nothing). `connection dropped` is its network failure.
 */
const PER_BASE_URL =
  'its local record is kept per base URL: pointed at a closed port it has nothing to ask about (connection dropped is its network failure)';

/** What train rl says on stderr as it goes. */
const TRAIN_NOTICES = /^(Training .* for 1 iterations; the run is kept in |Iteration 1\b)/;

/** The flags of one sample of one task, for the commands that sample (one request when nothing fails). */
const ONE_SAMPLE = () => [
  '--tasks',
  tasksFile,
  '--reward',
  'exact',
  '-K',
  '1',
  '--concurrency',
  '1',
  '--seed',
  '1',
];

/** One iteration of train rl on one sample, in a run directory of its own. */
const ONE_ITERATION = () => [
  'train',
  'rl',
  '--model',
  modelId,
  ...ONE_SAMPLE(),
  '--steps',
  '1',
  '--interval',
  '0.01',
  '--run-dir',
  join(partDir, `run-${++runDirs}`),
];

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
    // A model source: its checkpoints listed as checkpoints list --all lists them.
    name: 'compare',
    argv: () => ['compare', `model:${modelId}`, '--no-plot'],
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
  },
  {
    name: 'chat --stream',
    argv: () => ['chat', '-m', 'openai/gpt-oss-20b', '--stream', 'hi'],
    service: 'inference',
    method: 'POST',
    path: '/inference/v1/chat/completions',
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
    // Verifies the stored key against the inference model list (and the training probe).
    name: 'auth status',
    argv: () => ['auth', 'status'],
    // Its report is printed whatever the checks found: the inference row says what failed.
    failedOutput: /^profile\t[\s\S]*\ninference\t.* (error|unreachable|key rejected) \(/,
    says: {
      '401': /the key is rejected by the inference API; run 'aip auth login'/,
      '403': /the key is rejected by the inference API/,
    },
    service: 'inference',
    method: 'GET',
    path: '/inference/v1/models',
  },
  {
    // The state of each remembered job that has not finished comes from its events.
    name: 'jobs list',
    argv: () => ['jobs', 'list'],
    service: 'training',
    method: 'GET',
    // The queued job's: the part's other remembered jobs (those other cases made) are read too.
    get path() {
      return `/training/v1/preview/training-jobs/${jobId}/events`;
    },
    // The list is shown, the state it could not read as unknown, and the command fails with the error.
    notices: /^warning: the state of \d+ jobs? could not be read: shown as unknown$/,
    failedOutput: /unknown/,
    except: {
      faults: ['404', 'connection refused'],
      why: `a 404 is an answer (the job is gone: shown so); ${PER_BASE_URL}`,
    },
  },
  {
    name: 'jobs wait',
    argv: () => ['jobs', 'wait', doneJobId],
    service: 'training',
    method: 'GET',
    path: '/training/v1/preview/training-jobs/*/events',
    waits: true,
  },
  {
    name: 'events --follow',
    argv: () => ['events', doneJobId, '--follow'],
    service: 'training',
    method: 'GET',
    path: '/training/v1/preview/training-jobs/*/events',
    waits: true,
  },
  {
    // --stale asks the server about each remembered model (one GET of its checkpoints).
    name: 'models forget --stale',
    argv: () => ['models', 'forget', '--stale'],
    service: 'training',
    method: 'GET',
    // The part's first model's: a failed check ends the command before the others are asked.
    get path() {
      return `/training/v1/preview/models/${modelId}/checkpoints`;
    },
    notices: /^warning: could not check .*: nothing was forgotten$/,
    except: {
      faults: ['404', 'connection refused'],
      why: `a 404 is its answer (the model is gone: forgotten, test/commands/forget.test.ts); ${PER_BASE_URL}`,
    },
  },
  {
    // --stale asks the server about each remembered job (one GET of it).
    name: 'jobs forget --stale',
    argv: () => ['jobs', 'forget', '--stale'],
    service: 'training',
    method: 'GET',
    // The part's first job's: a failed check ends the command before the others are asked.
    get path() {
      return `/training/v1/preview/training-jobs/${jobId}`;
    },
    notices: /^warning: could not check .*: nothing was forgotten$/,
    except: {
      faults: ['404', 'connection refused'],
      why: `a 404 is its answer (the job is gone: forgotten, test/commands/forget.test.ts); ${PER_BASE_URL}`,
    },
  },
  {
    name: 'rollouts',
    argv: () => ['rollouts', '--model', MATRIX_ARTIFACT, ...ONE_SAMPLE()],
    service: 'training',
    method: 'POST',
    path: '/training/v1/chat/completions',
    adapts: true,
  },
  {
    name: 'eval',
    notices: /^Evaluating 1 checkpoint /,
    argv: () => ['eval', '--model', MATRIX_ARTIFACT, ...ONE_SAMPLE()],
    service: 'training',
    method: 'POST',
    path: '/training/v1/chat/completions',
    adapts: true,
  },
  {
    // Fresh samples scored and reported (its --replies mode sends nothing).
    name: 'reward test',
    notices: /^Sampling 1 reply for each of 1 task /,
    argv: () => ['reward', 'test', '--model', MATRIX_ARTIFACT, ...ONE_SAMPLE()],
    service: 'training',
    method: 'POST',
    path: '/training/v1/chat/completions',
    adapts: true,
  },
  {
    // One iteration: checkpoints list, sampling, the job created, its wait. The fault on its sampling.
    name: 'train rl (sampling)',
    argv: () => ONE_ITERATION(),
    service: 'training',
    method: 'POST',
    path: '/training/v1/chat/completions',
    adapts: true,
    notices: TRAIN_NOTICES,
    // It takes the model by its name in the local record (train rl remembers what it trains).
    except: { faults: ['connection refused'], why: PER_BASE_URL },
  },
  {
    // The same run, the fault on the wait for the job it created.
    name: 'train rl (wait)',
    argv: () => ONE_ITERATION(),
    service: 'training',
    method: 'GET',
    path: '/training/v1/preview/training-jobs/*/events',
    waits: true,
    notices: TRAIN_NOTICES,
    // Refused, the whole Training API is: the run's first request fails, not its wait (that case is
    // train rl (sampling)'s).
    except: {
      faults: ['connection refused'],
      why: "it refuses the run's first request, not the wait: as train rl (sampling)",
    },
  },
  {
    // A span of the command it runs, sent when the command has ended.
    name: 'traces exec',
    argv: () => ['traces', 'exec', '--', process.execPath, '-e', ''],
    service: 'trace',
    method: 'POST',
    path: '/trace/agents/otel/v1/traces',
    // Its exit is the command's it ran (0 here): a span that could not be sent is a warning.
    reports: { code: 0, line: 'warning: the span could not be sent: ' },
    says: { '401': /Authentication failed \(HTTP 401/ },
  },
  {
    // Every interface's health and key at once, as a table; the fault on the training health check.
    name: 'doctor',
    argv: () => ['doctor'],
    service: 'training',
    method: 'GET',
    path: '/training/v1/health',
    sendsOnce: 'a diagnosis, not a workload: each request is sent once (doctor.run.ts)',
    // Its table says what each check found (the training row, how it failed); exit 1 for a problem.
    reports: { code: 1, line: 'error: ', says: /^error: doctor found 1 problem: training$/ },
    failedOutput: /training/,
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
  /** Retried, up to --max-retries, on every path (one policy, issue 29): 408, 429, 5xx, the network. */
  retryable: boolean;
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
  // 408, 429 and 5xx (product.md §5), for both clients: the openai SDK's own retries (which took 409
  // too) are off, its requests go through the same loop.
  retryable: s === 408 || s === 429 || s >= 500,
});

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
    retryable: true,
  },
  {
    name: 'connection dropped',
    spec: { drop: true },
    code: 1,
    says: /unreachable|connection was closed|ECONNRESET|socket hang up/,
    retryable: true,
  },
  {
    // The answer begins, then the connection closes: the SDK has handed the body on by then.
    name: 'reset mid-body',
    spec: { cut_after_bytes: 12 },
    code: 1,
    says: /closed before the answer was complete|stream ended|unreachable|malformed JSON/,
    // A whole (non-streamed) body is read before it is answered: a cut one is sent again.
    retryable: true,
  },
  {
    // A streamed reply cut after its first chunks: the text so far is on stdout, and exit 1 says so.
    name: 'cut SSE stream (400 bytes)',
    spec: { cut_after_bytes: 400 },
    // Only chat's answers are longer than 400 bytes.
    only: ['chat', 'chat --stream'],
    code: 1,
    says: /closed before the answer was complete|stream ended|unreachable|malformed JSON/,
    retryable: true,
  },
  {
    name: 'stall past --timeout',
    spec: { delay_ms: 4000 },
    code: 1,
    says: /timed out|stalled/,
    flags: ['--timeout', '0.4'],
    retryable: true,
  },
  {
    name: 'malformed JSON body',
    spec: { status: 200, raw_body: '{"data": [', content_type: 'application/json' },
    code: 1,
    // Streaming chat reads it as a stream that never started: it says so.
    says: /malformed JSON|stream ended before the reply was complete/,
    retryable: false,
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
    retryable: true,
  },
];

const MAX_RETRIES = 2;
const serviceEnv: Record<Service, string> = {
  training: 'AIP_BASE_URL',
  inference: 'AIP_INFERENCE_URL',
  trace: 'AIP_TRACE_URL',
};

/** One case: the fault as injected, and what the command must do under it. */
interface Case {
  /** How many requests the fault answers before the route answers as usual. */
  times: number;
  flags: string[];
  /** False: the command rides the fault out and succeeds (exit 0). */
  fails: boolean;
  code: number;
  /** The line that reports the failure starts so, and says this. */
  line: string;
  says: RegExp;
  /** The fault's delay, when not its own. */
  delayMs?: number;
  /** Requests sent on the fault's route: exactly this many, or (`atLeast`) this many or more. */
  sent: number;
  atLeast?: boolean;
}

/** What may come on stderr before the failure: retry notices, traces send's progress. */
const RETRY_NOTICE = /^warning: .*retrying in|^Sent|^Stopped/;
/** A wait's poll that failed and is tried again. */
const WAIT_NOTICE = /^warning: .*; still waiting, next try in /;

/** A wait that ended at its --timeout: exit 7, the job still running (jobs/watch.ts). */
const WAIT_TIMEOUT = { code: 7, says: /after the --timeout of/ };

/** The rules of issue 29's one retry policy, for one command under one fault. */
function caseOf(command: Command, fault: Fault): Case {
  const status = fault.spec?.status as number | undefined;
  const base: Case = {
    times: 100,
    flags: fault.flags ?? [],
    fails: true,
    code: command.reports?.code ?? fault.code,
    line: command.reports?.line ?? 'error: ',
    says: command.says?.[fault.name] ?? command.reports?.says ?? fault.says,
    sent: MAX_RETRIES + 1,
  };
  if (command.waits && fault.retryable) {
    // A failed poll does not end a wait: only its --timeout does (or its stall detection). A stall
    // past --timeout, and a refused connection (which never stops), end it at the --timeout.
    if (fault.refused) return { ...base, ...WAIT_TIMEOUT, flags: ['--timeout', '1'], sent: 0, atLeast: true };
    if (fault.spec?.delay_ms !== undefined) {
      if (command.name !== 'train rl (wait)') return { ...base, ...WAIT_TIMEOUT, sent: 1, atLeast: true };
      // train rl samples and creates its job under the same --timeout before it waits: a bound set
      // for a busy machine, so that only the wait's poll meets the stall (which outlasts it).
      const seconds = patience(4000) / 1000;
      return {
        ...base,
        ...WAIT_TIMEOUT,
        flags: ['--timeout', String(seconds)],
        delayMs: 2 * seconds * 1000,
        sent: 1,
        atLeast: true,
      };
    }
    // More failed polls than a retry budget would allow, then the answer: the wait goes on to the
    // job's end (it has succeeded: exit 0). Polls pause on the test's recorded sleep, not the clock.
    // train rl's own job may still be running at that answer, and then it polls on.
    const times = MAX_RETRIES + 2;
    return {
      ...base,
      times,
      fails: false,
      code: 0,
      sent: times + 1,
      atLeast: command.name === 'train rl (wait)',
    };
  }
  if (command.adapts && status === 429) {
    // A 429 goes to the adaptive limit: it slows down and asks again, and that is not a retry. As
    // many 429s as a retry budget has attempts (MAX_RETRIES + 1), then the answer: a 429 counted as a
    // retry would have ended the run at the last of them; uncounted, the run succeeds, with exactly
    // one request more than the 429s. This was chosen over 429s until --timeout (exit 6), whose count
    // of requests depends on how many pauses fit in the time (test/commands/rollouts.test.ts has it).
    const times = MAX_RETRIES + 1;
    return { ...base, times, fails: false, code: 0, sent: times + 1 };
  }
  // A stream cut after it began is not sent again: the reply has started on stdout.
  const streamCut = command.name === 'chat --stream' && fault.spec?.cut_after_bytes !== undefined;
  const answered = status !== undefined && command.answers?.includes(status) === true;
  // A create is never sent again once it may have arrived; what is not retryable is sent once.
  const once =
    command.creates || command.sendsOnce !== undefined || !fault.retryable || streamCut || answered;
  return { ...base, sent: once ? 1 : MAX_RETRIES + 1 };
}

/**
 * The verbs of the command tree that send nothing over the network (the matrix has nothing to fault).
 * `models forget` and `jobs forget` send only with --stale, which the matrix has.
 */
const OFFLINE: Record<string, string> = {
  'history list': "reads this machine's history",
  'history show': "reads this machine's history",
  'history on': "writes the history's settings file",
  'history off': "writes the history's settings file",
  'history prune': "removes from this machine's history",
  'history path': 'prints a path',
  'usage summary': "adds up this machine's history",
  'usage prices': 'prints the price table in force',
  'auth logout': 'removes the stored key',
  'auth token': 'prints the stored key',
  'config get': 'reads the config file',
  'config set': 'writes the config file',
  'config unset': 'writes the config file',
  'config list': 'reads the config file',
  'config path': 'prints a path',
  'config profiles': 'reads the config file',
  'jobs validate rl': 'checks a file offline',
  'jobs validate sft': 'checks a file offline',
  'traces generate': 'writes synthetic spans to a file or stdout',
  'traces list':
    "reads this machine's trace store (--emulator: a local emulator's control route, not the platform)",
  'traces show':
    "reads this machine's trace store (--emulator: a local emulator's control route, not the platform)",
  'traces tail':
    "follows this machine's trace store (--emulator: a local emulator's control route, not the platform)",
  'rollouts merge': "joins shards' groups files into one, on this machine",
  completion: 'prints a shell script',
  __complete: 'completes from the local records, never the server (test/commands/complete.test.ts)',
  help: 'prints help',
};

/**
 * The verbs that send requests but are not in the matrix, and why. (chat's conversation, on a
 * terminal, is the verb chat: its replies go through the same completion code as chat's, which the
 * matrix has, streamed and not; a failed reply there is said and the conversation goes on.)
 */
const EXCLUDED: Record<string, string> = {
  emulator: 'starts the local emulator on this machine (and asks it whether it is up), not the platform',
  'emulator status': "asks the local emulator's own health route, not the platform",
  'emulator stop': 'signals the local emulator process',
  'emulator reset': "tells a running local emulator through its control route, not the platform's clients",
  'traces serve':
    'a server: what it does when trace ingest fails (unreachable, stopped and back, refusing) is test/traces/gateway/',
  'traces flush':
    "sends a gateway's spool, which is empty here: its failures are test/traces/gateway/serve.test.ts's",
  mcp: 'an MCP server over stdio: each tool runs a verb of the matrix through main(), with its requests, retries and exit codes (test/mcp/)',
};

/** The verb a matrix command runs: its name without the flag or the request it names. */
const verbOf = (name: string) => name.replace(/ (--\S+|\(.+\))$/, '');

/**
 * Every verb of the command tree (walked as test/commands/complete.test.ts walks it: a verb is a
 * command with an action of its own) is in the matrix, offline, or excluded with a reason: a new
 * verb that sends requests and was added to none of them fails here, in every part.
 */
function checkEveryVerb(): void {
  const verbs: string[] = [];
  const walk = (command: CommanderCommand, path: string[]) => {
    // commander keeps a command's action in a private field: `aip emulator` has both an action and
    // verbs, so having verbs does not make a command a noun only.
    const hasAction = (command as unknown as { _actionHandler: unknown })._actionHandler != null;
    if (path.length > 0 && (hasAction || command.commands.length === 0)) verbs.push(path.join(' '));
    for (const sub of command.commands) walk(sub, [...path, sub.name()]);
  };
  walk(wholeProgram(commandTree()), []);
  const inMatrix = new Set(COMMANDS.map((c) => verbOf(c.name)));
  const places = (verb: string) =>
    [inMatrix.has(verb), verb in OFFLINE, verb in EXCLUDED].filter(Boolean).length;
  const unplaced = verbs.filter((v) => places(v) === 0);
  const twice = verbs.filter((v) => places(v) > 1);
  const unknown = [...inMatrix, ...Object.keys(OFFLINE), ...Object.keys(EXCLUDED)].filter(
    (v) => !verbs.includes(v),
  );
  if (unplaced.length > 0 || twice.length > 0 || unknown.length > 0) {
    throw new Error(
      `every verb must be in the fault matrix's COMMANDS, OFFLINE or EXCLUDED, once: not placed ${unplaced}; in two places ${twice}; not verbs ${unknown}`,
    );
  }
}
checkEveryVerb();

/**
 * The commands of each part, balanced by how long their cases take (vitest's per-test durations):
 * traces exec starts a process per case (about 11 s of cases), rollouts and eval run a sampling run
 * (about 6 s each, the 429s without Retry-After waiting the adaptive limit's second), and train rl a
 * whole iteration (about 9 s each entry). Each part's cases took 19-24 s on a busy machine.
 */
const PARTS: string[][] = [
  ['traces exec', 'models delete', 'traces span', 'jobs create rl', 'system-check', 'events'],
  ['rollouts', 'models list', 'checkpoints prune', 'jobs get', 'models log', 'jobs create sft', 'chat'],
  ['train rl (sampling)', 'train rl (wait)', 'reward test'],
  ['eval', 'traces send', 'chat --stream', 'checkpoints delete', 'jobs wait', 'jobs list'],
  [
    'auth login',
    'events --follow',
    'models base',
    'jobs forget --stale',
    'models create',
    'models forget --stale',
    'doctor',
    'auth status',
    'health',
    'checkpoints list',
    'compare',
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
    const done = await run(
      words`jobs create rl --model ${modelId} --file ${join(EXAMPLES, 'groups.jsonl')} -q`,
    );
    doneJobId = done.stdout.trim();
    // Waited for here, so that a wait of a case ends at its first answered poll.
    expect((await run(words`jobs wait ${doneJobId} -q`)).code).toBe(0);
    partDir = env.AIP_CONFIG_DIR!;
    tasksFile = writeArithmeticTasks(join(partDir, 'tasks.jsonl'), 1);
    refusedPort = await closedPort();
  });

  describe('fault matrix', () => {
    for (const command of COMMANDS.filter((c) => names.includes(c.name))) {
      describe(command.name, () => {
        const faults = FAULTS.filter(
          (f) => (!f.only || f.only.includes(command.name)) && !command.except?.faults.includes(f.name),
        );
        for (const fault of faults) {
          it(fault.name, async () => {
            const expected = caseOf(command, fault);
            await emu.control('DELETE', '/faults');
            await emu.control('DELETE', '/requests');
            const runEnv = { ...env };
            if (fault.refused) runEnv[serviceEnv[command.service]] = `http://127.0.0.1:${refusedPort}/v1`;
            else
              await emu.fault({
                method: command.method,
                path: command.path,
                ...fault.spec,
                ...(expected.delayMs === undefined ? {} : { delay_ms: expected.delayMs }),
                times: expected.times,
              });
            const r = await runCli(
              ['--max-retries', String(MAX_RETRIES), ...expected.flags, ...command.argv()],
              { env: runEnv, stdin: command.stdin },
            );

            expect(r.code, r.stderr).toBe(expected.code);
            expect(r.stderr).not.toMatch(/\n\s+at .+:\d+:\d+/);
            if (expected.fails) {
              const lines = r.stderr.trimEnd().split('\n');
              const first = lines.findIndex((l) => l.startsWith(expected.line));
              expect(first, r.stderr).toBeGreaterThanOrEqual(0);
              expect(lines[first]).toMatch(expected.says);
              // One line (422: its field lines, indented, under it); retry notices before it; never a stack.
              for (const line of lines.slice(first + 1)) expect(line).toMatch(/^ {2}\S/);
              for (const line of lines.slice(0, first))
                expect(
                  [RETRY_NOTICE, command.notices, command.waits ? WAIT_NOTICE : undefined].some((n) =>
                    n?.test(line),
                  ),
                  `${line}\n(stderr:\n${r.stderr})`,
                ).toBe(true);
              if (command.failedOutput && r.stdout) expect(r.stdout).toMatch(command.failedOutput);
              else expect(r.stdout).toBe('');
            }

            if (fault.refused) return;
            const sent = (await emu.requests({ method: command.method })).filter((q) =>
              new RegExp(`^${command.path.replace(/\*/g, '[^/]+')}$`).test(q.path),
            );
            // Exactly as many attempts as the rules allow: every retry taken, none beyond the bound,
            // and a create never sent again once it may have arrived.
            if (expected.atLeast)
              expect(sent.length, `${command.name}: ${fault.name}`).toBeGreaterThanOrEqual(expected.sent);
            else expect(sent, `${command.name}: ${fault.name}`).toHaveLength(expected.sent);
          });
        }
      });
    }
  });
}
