// jq itself, in a budget of memory: jq 1.8 compiled to WebAssembly (the jq-wasm package), loaded and
// compiled, with the engine's imports that grow its heap and write its output wrapped so that neither
// goes past the budget. output/jq.ts runs it within a budget of time too.

import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setFlagsFromString } from 'node:v8';

export interface RawResult {
  stdout: string;
  stderr: string;
  exitCode: number;
}

/** How a run ended inside the engine when it did not end as jq's own runs do. */
export type Failure = { kind: 'memory'; what: string } | { kind: 'crash'; message: string };

export type Answer = { result: RawResult } | { failure: Failure };

export interface BudgetedJq {
  readonly version: string;
  /** jq's stderr when the expression does not compile, how compiling failed inside jq, or undefined. */
  compile(expression: string): string | Failure | undefined;
  run(text: string, expression: string, flags: string[]): Answer;
}

type Loaded = Awaited<ReturnType<typeof import('jq-wasm').loadJq>>;

type WasmModule = NonNullable<Parameters<typeof import('jq-wasm').loadJq>[0]>['wasmModule'];
type Imports = Record<string, Record<string, unknown>>;

/** The parts of WebAssembly Node has and its typings (without the DOM's) do not declare. */
const wasm = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;
interface WasmApi {
  compile(bytes: Uint8Array): Promise<WasmModule>;
  instantiate(module: WasmModule, imports: unknown): Promise<WasmInstance>;
  Memory: abstract new (...args: never[]) => { buffer: ArrayBuffer };
}
interface WasmInstance {
  exports: Record<string, unknown>;
}

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

let compiled: Promise<WasmModule> | undefined;

/**
 * V8 compiles WebAssembly with a baseline compiler (Liftoff) and then, in the background, recompiles
 * hot functions with its optimising one. An aip run uses jq for a few milliseconds, so that second
 * compilation is pure cost: ~70 ms of CPU per run, measured on a 2-core machine where it competes
 * with the run itself. Compiling each function on its first call skips the most of jq that a run
 * never calls. Both flags concern WebAssembly only, and are set before the module is compiled.
 */
function compileModule(): Promise<WasmModule> {
  compiled ??= (() => {
    try {
      setFlagsFromString('--liftoff-only');
      setFlagsFromString('--wasm-lazy-compilation');
    } catch {
      // Only a matter of speed: a Node that no longer takes flags at run time runs jq all the same.
    }
    return wasm.compile(readFileSync(jqWasmFile()));
  })();
  return compiled;
}

/**
 * An instance of jq whose heap may not grow past `memoryBytes`, nor its output (stdout and stderr
 * together) exceed it: the engine's imports that grow the heap and write a file are wrapped (found by
 * the names Emscripten gives them). A run that goes over ends inside the engine; it is reported as
 * over the budget, and that instance is not used again.
 */
export async function loadEngine(memoryBytes: number): Promise<BudgetedJq> {
  // Compiled on V8's own threads while this one loads the package's JavaScript (~8 ms saved).
  const [module, { loadJq }] = await Promise.all([compileModule(), import('jq-wasm')]);
  const state = { over: undefined as string | undefined, written: 0 };
  let instance: WasmInstance | undefined;
  const heapNow = () => {
    const memory = Object.values(instance?.exports ?? {}).find((v) => v instanceof wasm.Memory) as
      | { buffer: ArrayBuffer }
      | undefined;
    return memory?.buffer;
  };
  const limit = (imports: Imports) => {
    for (const table of Object.values(imports)) {
      for (const [name, fn] of Object.entries(table)) {
        if (typeof fn !== 'function') continue;
        if (fn.name === '_emscripten_resize_heap') {
          table[name] = (requested: number) => {
            if (requested >>> 0 > memoryBytes) {
              state.over ??= 'used';
              return 0;
            }
            const grown = (fn as (n: number) => number)(requested);
            if (!grown) state.over ??= 'used';
            return grown;
          };
        } else if (fn.name === '_fd_write') {
          // (fd, iov, iovcnt, pnum): what was written is at pnum once it returns.
          table[name] = (fd: number, iov: number, count: number, pnum: number) => {
            const status = (fn as (...a: number[]) => number)(fd, iov, count, pnum);
            const heap = heapNow();
            if (heap && (fd === 1 || fd === 2)) state.written += new Uint32Array(heap)[pnum >>> 2] ?? 0;
            if (state.written > memoryBytes) {
              state.over ??= 'wrote';
              throw new RangeError('jq wrote more than its memory budget');
            }
            return status;
          };
        }
      }
    }
  };
  const jq: Loaded = await loadJq({
    instantiateWasm: (imports, onSuccess) => {
      limit(imports as unknown as Imports);
      void wasm.instantiate(module, imports).then((made) => {
        instance = made;
        onSuccess(made as never, module as never);
      });
    },
  });
  const raw = (text: string, expression: string, flags: string[]): Answer => {
    state.over = undefined;
    state.written = 0;
    // What jq's runtime says on the console ("Aborted()") is not for the user: a failure is reported
    // once, in aip's words. aip itself writes to its streams, never through the console.
    const say = console.error;
    console.error = () => {};
    try {
      return { result: jq.raw(text, expression, flags) };
    } catch (error) {
      return { failure: failure(error, state.over) };
    } finally {
      console.error = say;
    }
  };
  return {
    version: jq.version,
    // jq with no input compiles the program and runs it on nothing: a compile check that cannot loop.
    compile(expression) {
      const check = raw('', expression, ['--']);
      if ('failure' in check) return check.failure;
      return check.result.exitCode === 0 ? undefined : check.result.stderr;
    },
    run: raw,
  };
}

/** What a run that threw inside the engine is reported as. */
function failure(error: unknown, over: string | undefined): Failure {
  if (over !== undefined) return { kind: 'memory', what: over };
  const message = error instanceof Error ? error.message : String(error);
  // jq aborts (C's abort(), Emscripten's "Aborted()") when an allocation fails; JavaScript runs out
  // of room for a string or a buffer of the output with a RangeError.
  if (
    /^Aborted\(\)|Array buffer allocation failed|Invalid (string|typed array) length|out of memory/i.test(
      message,
    )
  )
    return { kind: 'memory', what: 'used' };
  return { kind: 'crash', message: message.split('\n')[0]!.replace(/\. Build with -sASSERTIONS.*$/, '') };
}
