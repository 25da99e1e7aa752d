// What the Prism suites (prism-proxy.test.ts, prism-mock.test.ts) hold aip and the emulator to: the one
// list of statuses the platform sends but the document omits, the one operation aip uses that this
// revision lacks, the seed, the training files, and a bounded run of aip with its pass criteria.

import { EventEmitter } from 'node:events';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ExitCode } from '../../src/errors/errors.js';
import { type RunOptions, type RunResult, runCli } from '../helpers/cli.js';
import type { Exchange, Violation } from '../helpers/prism.js';
import { TEST_SEED } from '../helpers/seed.js';

/** The run's seed (test/helpers/seed.ts): the failure messages print it, AIP_TEST_SEED replays it. */
export const SEED = String(TEST_SEED);

/**
 * The only statuses whose answers may break the document, each with why the platform sends it although
 * no operation lists it (every operation documents exactly 200 and 422; api-contract.md §2.1, §2.6).
 */
export const UNDOCUMENTED_STATUSES: ReadonlyArray<{ from: number; to: number; why: string }> = [
  {
    from: 401,
    to: 401,
    why: 'a wrong or revoked key: HTTPBearer rejects it before the operation runs; the document declares the scheme, not the answer',
  },
  {
    from: 404,
    to: 404,
    why: 'an unknown model, job or checkpoint (FastAPI HTTPException {"detail"}); the document lists only 200 and 422',
  },
  {
    from: 409,
    to: 409,
    why: 'a model name already taken in the project, created without return_existing',
  },
  {
    from: 429,
    to: 429,
    why: 'rate and concurrency limits (api-contract.md §2.6, §5), with Retry-After; no operation documents them',
  },
  {
    from: 500,
    to: 599,
    why: 'server and gateway failures (500 {"detail"} and 524 observed, OpenPipe/ART#460), and the 503 of system-check when a component fails, which its description states in prose only',
  },
];

/** Operations aip uses that this revision of the document does not have. */
export const ABSENT_OPERATIONS: ReadonlyArray<{ method: string; path: string; why: string }> = [
  {
    method: 'GET',
    path: '/v1/preview/base-models',
    why: 'only a later revision of the document has it (api-contract.md §2.7); `aip models base` asks for it and says so when it is missing',
  },
];

const UNMATCHED_STATUS = /^Unable to match the returned status code with those defined in the document/;

export function undocumentedStatus(status: number) {
  return UNDOCUMENTED_STATUSES.find((s) => status >= s.from && status <= s.to);
}

function absent(exchange: Exchange): boolean {
  return ABSENT_OPERATIONS.some((o) => o.method === exchange.method && o.path === exchange.path);
}

export function describeExchange(e: Exchange): string {
  return `${e.method} ${e.path}${e.query ? `?${e.query}` : ''} → ${e.status || 'no answer'}${
    e.prismError ? ` [Prism ${e.prismError}]` : ''
  }${e.prefer ? ` (Prefer: ${e.prefer})` : ''}`;
}

/** Violations the lists above excuse: an undocumented status, or the absent operation. */
export function excusedViolations(e: Exchange): number {
  let n = 0;
  if (absent(e) && e.prismError === 'NO_PATH_MATCHED_ERROR') n += e.requestViolations.length;
  if (!e.prismError && undocumentedStatus(e.status))
    n += e.responseViolations.filter((v) => UNMATCHED_STATUS.test(v.message)).length;
  return n;
}

/** request.body.name, response.body.id, response: where a violation is (Prism omits the side at times). */
function where(v: Violation, side: 'request' | 'response'): string {
  return (v.location[0] === side ? v.location : [side, ...v.location]).join('.');
}

/** Every violation of an exchange that nothing excuses, as lines for an assertion message. */
export function contractProblems(e: Exchange): string[] {
  const problems: string[] = [];
  if (e.forwarderError) problems.push(`forwarder: ${e.forwarderError}`);
  for (const v of e.requestViolations) {
    if (absent(e) && e.prismError === 'NO_PATH_MATCHED_ERROR') continue;
    problems.push(`${where(v, 'request')}: ${v.message}`);
  }
  for (const v of e.responseViolations) {
    if (!e.prismError && undocumentedStatus(e.status) && UNMATCHED_STATUS.test(v.message)) continue;
    problems.push(`${where(v, 'response')}: ${v.message}`);
  }
  return problems.map((p) => `${describeExchange(e)}: ${p}`);
}

/** A trajectory group file (for models log, jobs create rl) and an SFT file, in dir. */
export function writeTrainingFiles(dir: string): { groups: string; sft: string } {
  const trajectory = {
    reward: 0.5,
    messages_and_choices: [
      { role: 'system', content: 'be brief' },
      { role: 'user', content: 'hi' },
      {
        finish_reason: 'stop',
        index: 0,
        logprobs: { content: [{ token: 'x', logprob: -0.1, top_logprobs: [] }] },
        message: { role: 'assistant', content: 'hello' },
      },
    ],
    metrics: { correct: true },
  };
  const groups = join(dir, 'groups.jsonl');
  writeFileSync(
    groups,
    `${JSON.stringify({ trajectories: [trajectory, { ...trajectory, reward: 0 }] })}\n${JSON.stringify({
      trajectories: [trajectory],
    })}\n`,
  );
  const sft = join(dir, 'train.jsonl');
  writeFileSync(
    sft,
    `${JSON.stringify({
      messages: [
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: 'hello' },
      ],
    })}\n`,
  );
  return { groups, sft };
}

export interface BoundedRun extends RunResult {
  ms: number;
  /** Still running at the bound: Ctrl-C was pressed. */
  interrupted: boolean;
  /** Not even Ctrl-C ended it: given up on (its result fields are empty). */
  hung: boolean;
}

/**
 * runCli, with a bound: at boundMs Ctrl-C is pressed (aip's own way to stop), and graceMs later the
 * run is given up on and onGiveUp is called (to cut its traffic).
 */
export async function runBounded(
  args: string[],
  options: RunOptions & { boundMs: number; graceMs?: number; onGiveUp?: () => void },
): Promise<BoundedRun> {
  const signals = new EventEmitter();
  const started = Date.now();
  let interrupted = false;
  const timers: NodeJS.Timeout[] = [];
  const given = await Promise.race([
    runCli(args, { ...options, signals }),
    new Promise<undefined>((resolve) => {
      timers.push(
        setTimeout(() => {
          interrupted = true;
          signals.emit('SIGINT');
        }, options.boundMs),
      );
      timers.push(setTimeout(() => resolve(undefined), options.boundMs + (options.graceMs ?? 2000)));
    }),
  ]);
  for (const timer of timers) clearTimeout(timer);
  const ms = Date.now() - started;
  if (given === undefined) {
    options.onGiveUp?.();
    return { code: -1, stdout: '', stderr: '', sleeps: [], ms, interrupted: true, hung: true };
  }
  return { ...given, ms, interrupted, hung: false };
}

const EXIT_CODES = new Set<number>(Object.values(ExitCode));

/**
 * What the mock suites require of every run: an end within the bound, one of aip's documented exit
 * codes, no stack trace and no "unexpected failure" on stderr, and something said when it exits 0:
 * a result on stdout, or on stderr what happened (`Deleted model …`, `No checkpoints`: a command whose
 * result is a message, or an empty list, keeps stdout empty for scripts and tells the person there).
 */
export function runProblems(r: BoundedRun, boundMs: number): string[] {
  const problems: string[] = [];
  if (r.hung) return [`hang: no end within ${boundMs} ms, nor after Ctrl-C`];
  if (r.interrupted) problems.push(`hang: still running after ${boundMs} ms (ended by Ctrl-C)`);
  if (!EXIT_CODES.has(r.code)) problems.push(`exit ${r.code} is not one of aip's exit codes`);
  if (/^\s+at \S/m.test(r.stderr)) problems.push('a stack trace on stderr');
  if (/unexpected failure/i.test(r.stderr)) problems.push('"unexpected failure" on stderr (a crash)');
  if (r.code === 0 && `${r.stdout}${r.stderr}`.trim() === '') problems.push('exit 0 having printed nothing');
  return problems;
}

export function clip(text: string, max = 600): string {
  return text.length > max ? `${text.slice(0, max)}…(${text.length - max} more)` : text;
}
