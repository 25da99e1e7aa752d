// --jq: the JSON aip would print, filtered by jq itself. The engine is jq 1.8 compiled to WebAssembly
// (the jq-wasm package), not a look-alike, so an expression means exactly what it means to `jq`.
// This file is imported only when --jq is given (io.useJq): the engine is ~1 MB of WebAssembly that
// Node compiles on every run, which the other commands must not pay for.

import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { CliError, UsageError } from '../errors/errors.js';

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
  run(input: unknown): JqRun;
}

/**
 * jq's record separator under --seq (RFC 7464): each result follows one, so results split without
 * parsing them, pretty-printed or not.
 */
const RS = '\u001e';

/**
 * Loads the engine and compiles `expression`: a compile error is a UsageError (exit 2), thrown
 * before the command has sent anything. `pretty`: objects and arrays indented as jq does by default
 * (on a terminal, as gh does), else one compact line each.
 */
export async function compileJq(expression: string, options: { pretty: boolean }): Promise<JqFilter> {
  const jq = await loadEngine();
  // jq with no input compiles the program and runs it on nothing: a compile check that cannot loop.
  const check = jq.raw('', expression, ['--']);
  if (check.exitCode !== 0) throw new UsageError(`--jq: ${compileError(check.stderr)}`);
  // `--` before the program: an expression starting with "-" ("-1") is a program, never a flag.
  const flags = ['--seq', ...(options.pretty ? [] : ['-c']), '--'];
  return {
    expression,
    get version() {
      return jq.version;
    },
    run(input) {
      // Under --seq jq reads RS-framed texts too.
      const result = jq.raw(`${RS}${JSON.stringify(input) ?? 'null'}\n`, expression, flags);
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

type Engine = Awaited<ReturnType<typeof import('jq-wasm').loadJq>>;

let engine: Promise<Engine> | undefined;

type WasmModule = NonNullable<Parameters<typeof import('jq-wasm').loadJq>[0]>['wasmModule'];

/** WebAssembly.compile, which Node has and its typings (without the DOM's) do not declare. */
const wasmCompile = (bytes: Uint8Array): Promise<WasmModule> =>
  (
    globalThis as unknown as { WebAssembly: { compile(b: Uint8Array): Promise<WasmModule> } }
  ).WebAssembly.compile(bytes);

/**
 * The package finds its .wasm next to its own module, which bundling into dist/ would break. The build
 * copies it to dist/jq.wasm (the package's JavaScript is bundled, so an installed aip does not carry
 * the package's other 3 MB); from the sources (in-process tests), the package's own file.
 */
function jqWasmFile(): string {
  const here = dirname(fileURLToPath(import.meta.url));
  // A chunk is in dist/chunks/; should this code land in dist/ itself, the file is beside it.
  for (const built of [join(here, '..', 'jq.wasm'), join(here, 'jq.wasm')])
    if (existsSync(built)) return built;
  return createRequire(import.meta.url).resolve('jq-wasm/jq.wasm');
}

/**
 * V8 compiles WebAssembly with a baseline compiler (Liftoff) and then, in the background, recompiles
 * hot functions with its optimising one. An aip run uses jq for a few milliseconds, so that second
 * compilation is pure cost: ~70 ms of CPU per run, measured on a 2-core machine where it competes
 * with the run itself. Compiling each function on its first call skips the most of jq that a run
 * never calls. Both flags concern WebAssembly only, and are set before the module is compiled.
 */
function loadEngine(): Promise<Engine> {
  engine ??= (async () => {
    try {
      setFlagsFromString('--liftoff-only');
      setFlagsFromString('--wasm-lazy-compilation');
    } catch {
      // Only a matter of speed: a Node that no longer takes flags at run time runs jq all the same.
    }
    const wasm = readFileSync(jqWasmFile());
    // Compiled on V8's own threads while this one loads the package's JavaScript (~8 ms saved).
    const [module, { loadJq }] = await Promise.all([wasmCompile(wasm), import('jq-wasm')]);
    return loadJq({ wasmModule: module });
  })().catch((error: unknown) => {
    engine = undefined;
    throw new CliError(`--jq: cannot load jq (the jq-wasm package): ${(error as Error).message}`);
  });
  return engine;
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
