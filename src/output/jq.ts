// --jq: the JSON aip would print, filtered by jq itself. The engine is jq 1.8 compiled to WebAssembly
// (the jq-wasm package), not a look-alike, so an expression means exactly what it means to `jq`.
// This file is imported only when --jq is given (io.useJq): the engine is ~1 MB of WebAssembly that
// Node compiles on every run, which the other commands must not pay for.
//
// jq runs within a budget of time and memory (jqBudgetFrom): an expression can loop for ever
// (`last(range(1e12))`), or fill memory (`[range(1e9)]`, `def f: [f]; f`), and neither may hang aip or
// end it with the engine's "Aborted()". Memory is bounded inside the engine: its heap may not grow
// past the budget, nor its output exceed it, nor the input (as JSON text) go in over it
// (jq-engine.ts). Time: each run, and the compile check, is stopped at the budget (TimedEngine), so
// io.json stays synchronous.

import { createContext, Script } from 'node:vm';
import { CliError, UsageError } from '../errors/errors.js';
import type { Env } from '../settings/global-options.js';
import { type BudgetedJq, type Failure, loadEngine, type RawResult } from './jq-engine.js';

/** One result of the expression: a string as it is (as `jq -r` prints it), anything else as JSON. */
export interface JqOutput {
  text: string;
  /** true when `text` is JSON (jq's own rendering, numbers kept as jq writes them). */
  json: boolean;
}

export interface JqRun {
  outputs: JqOutput[];
  /** What jq wrote on stderr while succeeding (`debug`, `stderr`, `halt_error(0)`), line by line. */
  messages: string[];
  /** jq's error at run time, in one line, when the expression failed (after `outputs`). */
  error?: string;
}

export interface JqFilter {
  readonly expression: string;
  /** The jq version compiled in, e.g. "jq-1.8.2". */
  readonly version: string;
  /** Throws a CliError (exit 1) when jq goes past its budget of time or memory. */
  run(input: unknown): JqRun;
}

/** How long one run of the expression may take, and how much memory jq may use. */
export interface JqBudget {
  seconds: number;
  /** jq's heap, and each of its input (as JSON text) and its output, at most. */
  memoryBytes: number;
}

const MiB = 1024 * 1024;
/** The engine's own ceiling: jq-wasm's heap cannot grow past 256 MiB, whatever is asked. */
const MAX_MEMORY = 256 * MiB;
/** Under this, jq cannot start (its heap starts at 16 MiB). */
const MIN_MEMORY = 32 * MiB;
const MAX_SECONDS = 86_400;

export const DEFAULT_JQ_BUDGET: Readonly<JqBudget> = { seconds: 10, memoryBytes: MAX_MEMORY };

/**
 * The budget in effect: AIP_JQ_TIMEOUT (seconds, e.g. 0.5 or 30) and AIP_JQ_MEMORY (a size such as
 * 64M or 64MiB, from 32 MiB to 256 MiB), else DEFAULT_JQ_BUDGET. A bad value is a usage error.
 */
export function jqBudgetFrom(env: Env): JqBudget {
  const budget = { ...DEFAULT_JQ_BUDGET };
  const seconds = env.AIP_JQ_TIMEOUT;
  if (seconds !== undefined && seconds !== '') {
    const value = /^\s*\d+(?:\.\d+)?\s*s?\s*$/.test(seconds) ? Number.parseFloat(seconds) : Number.NaN;
    if (!(value > 0 && value <= MAX_SECONDS))
      throw new UsageError(
        `AIP_JQ_TIMEOUT: expected a number of seconds such as 10 or 0.5, at most ${MAX_SECONDS}, got "${seconds}"`,
      );
    budget.seconds = value;
  }
  const memory = env.AIP_JQ_MEMORY;
  if (memory !== undefined && memory !== '') {
    const match = /^\s*(\d+(?:\.\d+)?)\s*([kmg]?)(?:i?b)?\s*$/i.exec(memory);
    const unit = { '': 1, k: 1024, m: MiB, g: 1024 * MiB }[match?.[2]?.toLowerCase() ?? ''] ?? 1;
    const bytes = match ? Math.floor(Number(match[1]) * unit) : Number.NaN;
    if (!(bytes >= MIN_MEMORY && bytes <= MAX_MEMORY))
      throw new UsageError(
        `AIP_JQ_MEMORY: expected a size such as 128M or 128MiB, from 32 MiB to 256 MiB (jq's own ceiling), got "${memory}"`,
      );
    budget.memoryBytes = bytes;
  }
  return budget;
}

const showSeconds = (s: number) => `${Number(s.toPrecision(3))} s`;
const showSize = (bytes: number) =>
  bytes >= MiB ? `${Math.round((bytes / MiB) * 10) / 10} MiB` : `${Math.round(bytes / 1024)} KiB`;

function overTime(budget: JqBudget): CliError {
  const error = new CliError(`--jq: the filter ran past its time budget of ${showSeconds(budget.seconds)}`);
  error.hint = 'AIP_JQ_TIMEOUT=<seconds> gives it longer';
  return error;
}

/** `what`: what went over (jq's memory, its input, its output). */
function overMemory(budget: JqBudget, what: string): CliError {
  const error = new CliError(
    `--jq: the filter ${what} more than its memory budget of ${showSize(budget.memoryBytes)}`,
  );
  if (budget.memoryBytes < MAX_MEMORY) error.hint = 'AIP_JQ_MEMORY=256M gives it more';
  return error;
}

/**
 * jq's record separator under --seq (RFC 7464): each result follows one, so results split without
 * parsing them, pretty-printed or not.
 */
const RS = '\u001e';

/**
 * Loads the engine and compiles `expression`: a compile error is a UsageError (exit 2), thrown
 * before the command has sent anything. `pretty`: objects and arrays indented as jq does by default
 * (on a terminal, as gh does), else one compact line each. `env`: where the budget is read from.
 */
export async function compileJq(
  expression: string,
  options: { pretty: boolean; env?: Env; budget?: JqBudget },
): Promise<JqFilter> {
  const budget = options.budget ?? jqBudgetFrom(options.env ?? {});
  const engine = await TimedEngine.start(expression, budget);
  const compiling = engine.compile();
  if (typeof compiling === 'string') throw new UsageError(`--jq: ${compileError(compiling)}`);
  // jq computes constant parts as it compiles ("x" * 1e9): that can go over the budget too.
  if (compiling !== undefined) throw failed(compiling, budget);
  // `--` before the program: an expression starting with "-" ("-1") is a program, never a flag.
  const flags = ['--seq', ...(options.pretty ? [] : ['-c']), '--'];
  return {
    expression,
    get version() {
      return engine.version;
    },
    run(input) {
      // Under --seq jq reads RS-framed texts too.
      const text = `${RS}${JSON.stringify(input) ?? 'null'}\n`;
      // jq holds more than the text once parsed: an input over the budget cannot fit.
      if (text.length > budget.memoryBytes) throw overMemory(budget, 'was given');
      const result = engine.run(text, flags);
      const outputs = result.stdout
        .split(RS)
        .slice(1)
        .map((chunk) => output(chunk.replace(/\n$/, '')));
      const stderr = result.stderr === '' ? [] : result.stderr.split('\n');
      if (result.exitCode === 0) return { outputs, messages: stderr };
      return { outputs, messages: [], error: runtimeError(stderr, result.exitCode) };
    },
  };
}

function output(text: string): JqOutput {
  // A string result is one line of JSON starting with a quote; anything else is printed as jq wrote it.
  return text.startsWith('"') ? { text: JSON.parse(text) as string, json: false } : { text, json: true };
}

function failed(failure: Failure, budget: JqBudget): CliError {
  if (failure.kind === 'memory') return overMemory(budget, failure.what);
  return new CliError(`--jq: jq stopped: ${failure.message}`);
}

// ---- The engine, timed ---------------------------------------------------------------------------

/**
 * jq on this thread, each run within the time budget: run through node:vm with a timeout, whose
 * watchdog thread stops V8 wherever it is, WebAssembly loops included (a jq that never ends). A worker
 * thread that could be ended would do as well, at ~50 ms more for every --jq (starting the thread) and
 * code of its own; node:vm costs a watchdog thread per run, microseconds. After a failure inside it
 * the engine is not used again: its state is whatever the stop left.
 */
class TimedEngine {
  private broken: CliError | undefined;
  private readonly context = createContext({ run: (): unknown => undefined });
  private readonly call = new Script('run()');

  private constructor(
    private readonly jq: BudgetedJq,
    private readonly expression: string,
    private readonly budget: JqBudget,
  ) {}

  get version(): string {
    return this.jq.version;
  }

  static async start(expression: string, budget: JqBudget): Promise<TimedEngine> {
    const jq = await loadEngine(budget.memoryBytes).catch((error: unknown) => {
      throw new CliError(`--jq: cannot load jq (the jq-wasm package): ${(error as Error).message}`);
    });
    const engine = new TimedEngine(jq, expression, budget);
    return engine;
  }

  /** jq's stderr when the expression does not compile, how compiling failed inside jq, or undefined. */
  compile(): string | Failure | undefined {
    return this.timed(() => this.jq.compile(this.expression));
  }

  run(text: string, flags: string[]): RawResult {
    if (this.broken) throw this.broken;
    const answer = this.timed(() => this.jq.run(text, this.expression, flags));
    if ('result' in answer) return answer.result;
    this.broken = failed(answer.failure, this.budget);
    throw this.broken;
  }

  private timed<T>(work: () => T): T {
    this.context.run = work;
    try {
      return this.call.runInContext(this.context, { timeout: Math.ceil(this.budget.seconds * 1000) }) as T;
    } catch (error) {
      if ((error as { code?: string }).code !== 'ERR_SCRIPT_EXECUTION_TIMEOUT') throw error;
      this.broken = overTime(this.budget);
      throw this.broken;
    } finally {
      this.context.run = () => undefined;
    }
  }
}

/**
 * jq's compile error in one line: "syntax error, unexpected end of file at line 1, column 3" from
 * "jq: error: … at <top-level>, line 1, column 3:", the excerpt and caret under it dropped.
 */
function compileError(stderr: string): string {
  const lines = stderr.split('\n').filter((line) => line.trim() !== '');
  const errors = lines.filter((line) => line.startsWith('jq: error'));
  const first = (errors[0] ?? lines[0] ?? 'the expression does not compile')
    .replace(/^jq: error: /, '')
    .replace(/ at <top-level>, /, ' at ')
    .replace(/:$/, '');
  return errors.length > 1 ? `${first} (and ${errors.length - 1} more errors)` : first;
}

/** jq's error at run time in one line, without the "jq: error (at /dev/stdin:0):" of its CLI. */
function runtimeError(stderr: string[], exitCode: number): string {
  const line = stderr.find((l) => l.trim() !== '');
  if (line === undefined) return `the expression stopped with status ${exitCode}`;
  const message = line.replace(/^jq: error \(at [^)]*\)(?: \(not a string\))?: /, '');
  // halt_error writes its input as it is: not jq's own message, so say where it came from.
  return message === line ? `halt_error: ${line}` : message;
}
