// The one object through which every command reads stdin and writes stdout/stderr. It knows whether
// each stream is a terminal, whether colour is wanted, whether we run in CI, and which strings are
// secrets that must never be written. Every write is rendered harmless for a terminal (sanitize.ts):
// only aip's own styling and control sequences pass as they are. Tests build one over in-memory
// streams (test/helpers/io.ts).

import { isatty } from 'node:tty';
import { Chalk, type ChalkInstance } from 'chalk';
import { CliError, UsageError } from '../errors/errors.js';
import type { Env } from '../settings/global-options.js';
import type { JqFilter } from './jq.js';
import type { PagerCommand } from './pager.js';
import type { RunningPager, startPager } from './pager-process.js';
import { Trust } from './sanitize.js';
import { redactSecrets, redactUrlSecrets } from './secrets.js';

export interface OutStream {
  write(chunk: string): boolean;
  isTTY?: boolean;
  columns?: number;
}

export interface InStream extends NodeJS.ReadableStream {
  isTTY?: boolean;
  setRawMode?: (mode: boolean) => unknown;
}

/** The streams may be getters, read only when first written or read (see processIO). */
export interface Streams {
  readonly stdout: OutStream;
  readonly stderr: OutStream;
  readonly stdin: InStream;
  /** Whether each is a terminal, when known without making the stream. */
  stdoutIsTTY?: boolean;
  stderrIsTTY?: boolean;
  stdinIsTTY?: boolean;
  /** The file descriptors behind stdout and stderr, when they are the process's own. */
  stdoutFd?: number;
  stderrFd?: number;
}

/**
 * What keeps one stream's lines from reading as workflow commands on a GitHub Actions runner
 * (ci/runner-lines.ts): the text as it may be written, given what the stream's line holds so far.
 */
export interface LineGuard {
  guard(text: string): string;
  /** Nothing written since the last line break. */
  readonly atLineStart: boolean;
  /** Text went out past the guard, ending a line. */
  restart(): void;
}

export interface Spinner {
  update(text: string): void;
  stop(): void;
}

const noSpinner: Spinner = { update() {}, stop() {} };

/** Colour rules of product.md section 4, for one output stream. */
export function wantsColor(env: Env, isTTY: boolean, noColorFlag: boolean): boolean {
  if (noColorFlag) return false;
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.TERM === 'dumb') return false;
  const force = env.FORCE_COLOR;
  if (force === '0' || force === 'false') return false;
  if (force !== undefined && ['', '1', '2', '3', 'true'].includes(force)) return true;
  return isTTY;
}

export function isCI(env: Env): boolean {
  const ci = env.CI;
  return ci !== undefined && ci !== '' && ci !== '0' && ci !== 'false';
}

export class IO {
  readonly isStdoutTTY: boolean;
  readonly isStderrTTY: boolean;
  readonly isStdinTTY: boolean;
  readonly isCI: boolean;
  /** Styles for text bound for stdout / stderr; both are no-ops when colour is off for that stream. */
  style: ChalkInstance;
  errStyle: ChalkInstance;
  quiet = false;
  /** --jsonl: a list printed by `json` goes out one item per line. */
  private jsonLines = false;
  /** --jq: every JSON value printed goes through it (see useJq). */
  private jq: JqFilter | undefined;
  private readonly trusted = new Trust();
  private stdoutClosed = false;
  private readonly closeListeners = new Set<() => void>();
  /** Asked for by a command whose output can be long; started by its first result (pageOutput). */
  private pagerToStart: { command: PagerCommand; start: typeof startPager } | undefined;
  private pager: RunningPager | undefined;
  /** Messages for stderr while the pager has the terminal: written once it has quit. */
  private heldMessages: string[] = [];
  private readonly runningSpinners = new Set<Spinner>();
  /** On a GitHub Actions runner (guardLines): each stream's guard, none for one that goes to a file. */
  private lineGuards: { stdout?: LineGuard; stderr?: LineGuard } | undefined;

  constructor(
    private readonly streams: Streams,
    private readonly env: Env,
  ) {
    this.isStdoutTTY = streams.stdoutIsTTY ?? streams.stdout.isTTY === true;
    this.isStderrTTY = streams.stderrIsTTY ?? streams.stderr.isTTY === true;
    this.isStdinTTY = streams.stdinIsTTY ?? streams.stdin.isTTY === true;
    this.isCI = isCI(env);
    this.style = this.chalkFor(this.isStdoutTTY, false);
    this.errStyle = this.chalkFor(this.isStderrTTY, false);
  }

  get stdin(): InStream {
    return this.streams.stdin;
  }

  /** Applies the global flags once they are parsed. */
  configure(options: { noColor?: boolean; quiet?: boolean; json?: boolean; jsonl?: boolean }): void {
    const noColor = options.noColor === true;
    this.style = this.chalkFor(this.isStdoutTTY, noColor);
    this.errStyle = this.chalkFor(this.isStderrTTY, noColor);
    this.quiet = options.quiet === true;
    if (options.json && options.jsonl)
      throw new UsageError('give --json (one document) or --jsonl (one item per line), not both');
    this.jsonLines = options.jsonl === true;
  }

  /**
   * --jq: loads jq and compiles the expression, before the command does anything (a bad expression
   * is a usage error, exit 2, and nothing is sent). The engine is imported here, only when asked for.
   */
  async useJq(expression: string): Promise<void> {
    const { compileJq } = await import('./jq.js');
    this.jq = await compileJq(expression, { pretty: this.isStdoutTTY, env: this.env });
  }

  /**
   * From the first result on, stdout goes through `pager` (output/pager.ts chooses it). Started only
   * then, so that a command that fails before printing anything, or prints nothing, never shows one,
   * and the spinner of its requests runs until the results come.
   */
  pageOutput(command: PagerCommand, start: typeof startPager): void {
    if (this.isStdoutTTY && !this.pager) this.pagerToStart = { command, start };
  }

  /** Where results go: the pager while one runs, else stdout. */
  private get resultStream(): OutStream {
    if (this.pagerToStart) this.startPagerNow(this.pagerToStart.command, this.pagerToStart.start);
    return this.pager?.stream ?? this.streams.stdout;
  }

  private startPagerNow(command: PagerCommand, start: typeof startPager): void {
    this.pagerToStart = undefined;
    // Nothing may draw on the terminal while the pager has it.
    for (const spinner of this.runningSpinners) spinner.stop();
    this.pager = start(
      command,
      this.streams.stdout.columns,
      () => this.markStdoutClosed(),
      (message) => this.heldMessages.push(`${this.errStyle.yellow('warning:')} ${message}\n`),
    );
  }

  /**
   * Resolves when the output written so far has been taken: at once, but for a pager, which reads
   * only as the user pages. A command that writes much output, as it comes, waits on it between
   * items, so that what a pager has not read yet is never all held in memory.
   */
  drained(): Promise<void> {
    return this.pager ? this.pager.drained() : Promise.resolve();
  }

  /** Waits for the pager, if one runs, to quit; then writes what was held for stderr. */
  async closePager(): Promise<{ interrupted: boolean }> {
    this.pagerToStart = undefined;
    const pager = this.pager;
    if (!pager) return { interrupted: false };
    const ended = await pager.close();
    this.pager = undefined;
    const held = this.heldMessages;
    this.heldMessages = [];
    for (const text of held) this.toStderr(text);
    return ended;
  }

  /**
   * From now on, every write to stdout and stderr goes through the guard `make` gives for its file
   * descriptor (ci/runner-lines.ts, on a GitHub Actions runner); once per run.
   */
  guardLines(make: (fd: number | undefined) => LineGuard | undefined): void {
    if (this.lineGuards) return;
    this.lineGuards = { stdout: make(this.streams.stdoutFd), stderr: make(this.streams.stderrFd) };
  }

  /** Text to stdout as it is, but for controls from outside (shown, not acted on) and keys (masked). */
  write(text: string): void {
    const safe = redactSecrets(this.trusted.render(text));
    this.resultStream.write(this.lineGuards?.stdout?.guard(safe) ?? safe);
  }

  /** aip's own control sequence (a line redrawn in place), to be written as it is. */
  control(sequence: string): string {
    return this.trusted.trust(sequence);
  }

  /** One line of result to stdout. */
  out(line = ''): void {
    this.write(`${line}\n`);
  }

  /** The reader of stdout went away (`aip … | head -1`): there is no point producing more. */
  markStdoutClosed(): void {
    if (this.stdoutClosed) return;
    this.stdoutClosed = true;
    for (const listener of this.closeListeners) listener();
  }

  get outputClosed(): boolean {
    return this.stdoutClosed;
  }

  /** Calls `listener` when stdout closes; returns the function that stops listening. */
  onStdoutClosed(listener: () => void): () => void {
    if (this.stdoutClosed) listener();
    this.closeListeners.add(listener);
    return () => this.closeListeners.delete(listener);
  }

  /** Bytes to stdout as they are (binary output: a protobuf file). */
  writeBytes(bytes: Uint8Array): void {
    (this.resultStream as unknown as { write(chunk: Uint8Array): boolean }).write(bytes);
    // Binary, not text: bytes are never altered, and what the line holds after them is unknown.
    this.lineGuards?.stdout?.restart();
  }

  /** Writes a secret to stdout unmasked: only `aip auth token` does this, on purpose. */
  writeSecret(text: string): void {
    this.streams.stdout.write(text);
    this.lineGuards?.stdout?.restart();
  }

  /**
   * The value as JSON, exact: JSON escapes the C0 controls itself, and the few characters it leaves
   * raw that a terminal may act on (DEL, the C1 controls, bidi overrides) are escaped the same way.
   * With --jsonl an array goes out one item per line (anything else as one line), so that every
   * command that lists takes --jsonl without knowing of it; with --jq the value, or with both each
   * item, goes through jq instead.
   */
  json(value: unknown): void {
    if (this.jsonLines) {
      for (const item of Array.isArray(value) ? value : [value]) this.jsonLine(item);
    } else if (this.jq) this.filtered(this.jq, value);
    else this.out(exactJson(JSON.stringify(value, null, 2)));
  }

  /** One JSON Lines record (--jsonl), exact in the same way; with --jq, the record through jq. */
  jsonLine(value: unknown): void {
    if (this.jq) this.filtered(this.jq, value);
    else this.out(exactJson(JSON.stringify(value)));
  }

  /**
   * jq's results, each on its own line as gh prints them: a string as it is (like `jq -r`, still
   * rendered harmless for a terminal), anything else as JSON (exact, as above). What jq says on stderr
   * goes there; its error at run time ends the command (exit 1), after the results before it.
   */
  private filtered(jq: JqFilter, value: unknown): void {
    const { outputs, messages, error } = jq.run(value);
    for (const output of outputs) this.out(output.json ? exactJson(output.text) : output.text);
    for (const message of messages) this.err(message);
    if (error !== undefined) throw new CliError(`--jq: ${error}`);
  }

  /** Width of the terminal on stdout (80 when unknown). */
  get columns(): number {
    return this.streams.stdout.columns || 80;
  }

  /** Width of the terminal on stderr, where progress is drawn (80 when unknown). */
  get stderrColumns(): number {
    return this.streams.stderr.columns || 80;
  }

  /** The stderr stream itself, for readline's prompts (they write the question there). */
  get stderrStream(): NodeJS.WritableStream {
    return this.streams.stderr as unknown as NodeJS.WritableStream;
  }

  /** Text to stderr, rendered and masked as `write` does, and secrets in URLs masked too (messages). */
  errWrite(text: string): void {
    const safe = redactUrlSecrets(redactSecrets(this.trusted.render(text)));
    if (this.pager) this.heldMessages.push(safe);
    else this.toStderr(safe);
  }

  private toStderr(text: string): void {
    this.streams.stderr.write(this.lineGuards?.stderr?.guard(text) ?? text);
  }

  /**
   * One of aip's own workflow commands (ci/github.ts) to stderr as it is: the one line a runner must
   * act on. On a line of its own, after a line break if the last write left one open.
   */
  workflowCommand(line: string): void {
    const guard = this.lineGuards?.stderr;
    this.streams.stderr.write(`${guard && !guard.atLineStart ? '\n' : ''}${line}\n`);
    guard?.restart();
  }

  err(line = ''): void {
    this.errWrite(`${line}\n`);
  }

  /** Progress and hints: stderr, silenced by --quiet. */
  info(line: string): void {
    if (!this.quiet) this.err(line);
  }

  warn(line: string): void {
    this.err(`${this.errStyle.yellow('warning:')} ${line}`);
  }

  /**
   * Only on a terminal of known width, outside CI, without --quiet. A zero-width terminal (a pty
   * nobody sized, e.g. under `script`) would make ora clear lines forever. Nor where lines are guarded
   * for a runner: ora writes past the IO.
   */
  get spinnersEnabled(): boolean {
    return (
      this.isStderrTTY &&
      (this.streams.stderr.columns ?? 0) > 0 &&
      !this.isCI &&
      !this.quiet &&
      !this.pager &&
      !this.lineGuards
    );
  }

  /**
   * Runs `work` under a spinner on stderr (when spinners are enabled), and stops the spinner however
   * `work` ends: a spinner left running would keep the process alive after an error.
   */
  async withSpinner<T>(text: string, work: (spinner: Spinner) => Promise<T>): Promise<T> {
    const spinner = await this.startSpinner(text);
    try {
      return await work(spinner);
    } finally {
      spinner.stop();
    }
  }

  private async startSpinner(text: string): Promise<Spinner> {
    if (!this.spinnersEnabled) return noSpinner;
    const { default: ora } = await import('ora');
    const stream = this.streams.stderr as unknown as NodeJS.WritableStream;
    const render = (t: string) => redactUrlSecrets(redactSecrets(this.trusted.render(t)));
    const spin = ora({ text: render(text), stream, color: 'cyan', isEnabled: true, discardStdin: false });
    spin.start();
    const spinner: Spinner = {
      update: (t) => {
        if (this.runningSpinners.has(spinner)) spin.text = render(t);
      },
      stop: () => {
        this.runningSpinners.delete(spinner);
        spin.stop();
      },
    };
    this.runningSpinners.add(spinner);
    return spinner;
  }

  async readStdin(): Promise<string> {
    const chunks: Buffer[] = [];
    for await (const chunk of this.stdin) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk));
    return Buffer.concat(chunks).toString('utf8');
  }

  /**
   * Chalk, with the escapes it adds trusted and the text it is given neutralised first: a styled
   * cell of server data keeps its colour, and none of the server's own escapes.
   */
  private chalkFor(isTTY: boolean, noColorFlag: boolean): ChalkInstance {
    const chalk = new Chalk({ level: wantsColor(this.env, isTTY, noColorFlag) ? 1 : 0 });
    const trusted = this.trusted;
    // A proxy of a stand-in function, not of chalk itself: chalk fixes its builders as read-only
    // properties once made, which a proxy of it could not then answer with a wrapped one.
    const wrap = (real: unknown): unknown => {
      if (typeof real !== 'function') return real;
      const call = real as (...args: unknown[]) => unknown;
      return new Proxy(() => {}, {
        apply: (_stand, _self, args: unknown[]) =>
          trusted.trust(String(call(...args.map((a) => trusted.neutralize(String(a)))))),
        get: (_stand, key) => wrap(Reflect.get(call, key)),
      });
    };
    return wrap(chalk) as ChalkInstance;
  }
}

/**
 * In a JSON string, what a GitHub Actions runner would take for the start of a workflow command
 * (ci/runner-lines.ts): the "[" of "##[", and invisible characters right after a "#". No line of JSON
 * can start with "::" (a string's line breaks are escaped), so these are all a runner could act on.
 */
const RUNNER_SYNTAX = /(?<=##)\[|(?<=#)[\p{Cc}\p{Cf}\p{Default_Ignorable_Code_Point}]+/gu;

const jsonEscape = (ch: string) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`;

/**
 * JSON text with the characters JSON.stringify leaves raw but a terminal may act on escaped, and those
 * a runner would act on: escaped as JSON escapes them, so the value is the same, and the text the same
 * on a runner and off it.
 */
export function exactJson(text: string): string {
  return text
    .replace(RUNNER_SYNTAX, (found) => found.replace(/[\s\S]/g, jsonEscape))
    .replace(/[\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, jsonEscape);
}

export function processIO(env: Env): IO {
  // Node makes process.stdin, stdout and stderr on first use, and making them costs milliseconds of
  // every start-up (a stream, and the net or tty module under it; a file stream even for /dev/null):
  // each is made when it is first written or read, and whether it is a terminal comes from isatty().
  let stdout: OutStream | undefined;
  let reported = false;
  const streams: Streams = {
    get stdout() {
      if (stdout) return stdout;
      stdout = process.stdout;
      // `aip … | head -1` closes the pipe early: the reader has all it wanted, so that is no error
      // (and commands that stream stop). Any other failure to write results is reported once, and
      // fails the run.
      process.stdout.on('error', (error: NodeJS.ErrnoException) => {
        if (error.code === 'EPIPE') return io.markStdoutClosed();
        if (reported) return;
        reported = true;
        process.stderr.write(`error: cannot write to stdout: ${error.code ?? error.message}\n`);
        process.exitCode = 1;
      });
      return stdout;
    },
    get stderr() {
      return process.stderr;
    },
    get stdin() {
      return process.stdin;
    },
    stdoutIsTTY: isatty(1),
    stderrIsTTY: isatty(2),
    stdinIsTTY: isatty(0),
    stdoutFd: 1,
    stderrFd: 2,
  };
  const io = new IO(streams, env);
  return io;
}
