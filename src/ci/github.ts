// aip on GitHub Actions: annotations, masks, step outputs and the step summary. On when GITHUB_ACTIONS
// is "true", or --ci github; off with --ci none.
//
// The API, for any command (`ctx` is the Context; anything with env, io and globals will do):
//
//   const gha = githubActions(ctx);          // undefined when not on GitHub Actions: gha?.… does nothing
//   gha?.setOutputs({ 'job-id': id, 'last-step': 12, checkpoint: undefined });  // undefined: left out
//   gha?.appendSummary(markdown);             // Markdown; escape server text with markdown.ts
//   gha?.annotate({ message, file, line, col, title });   // ::error file=…,line=…::message
//   gha?.annotate({ level: 'warning', message });
//   gha?.error(message, 'aip jobs wait');     // ::error title=…::message
//
// and lineChart() in chart.ts for the summary's charts. Each call is one append (or one line): a
// command may call setOutputs and appendSummary more than once. None of them throws or changes the
// exit code: a file that cannot be written is a warning on stderr, and the command's result stands.
//
// Where the lines go: stderr. stdout carries results only (JSON that a later step parses), and the
// runner reads workflow commands from both streams: actions/runner src/Runner.Worker/Handlers/
// ScriptHandler.cs (as NodeScriptActionHandler.cs) hands StepHost.OutputDataReceived and
// ErrorDataReceived each to an OutputManager, whose OnDataReceived runs every line through
// ActionCommandManager.TryProcessCommand. (@actions/core writes to stdout because an action's own
// stdout is not a result anyone parses.)
//
// What reaches a line from outside (a file being checked, a server's message) is escaped by the
// toolkit's rules (workflow-commands.ts), keys masked in it first, then made harmless for a terminal
// as every write of aip is (output/sanitize.ts; the escapes leave no line break for it to keep);
// the one line that holds a key unmasked is ::add-mask::, which is how the runner learns to mask it.
// These lines are the only ones written past the guard that keeps every other write of aip from
// reading as a workflow command (runner-lines.ts), each on a line of its own (io.workflowCommand).

import { appendFileSync, statSync } from 'node:fs';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { describeFsError, isFsError } from '../fs/write-error.js';
import type { IO } from '../output/io.js';
import { sanitize } from '../output/sanitize.js';
import { redactSecrets, redactUrlSecrets } from '../output/secrets.js';
import type { Env, GlobalOptions } from '../settings/global-options.js';
import { onGitHubActions } from './detect.js';
import { keyValueEntry, workflowCommand } from './workflow-commands.js';

/** What the CI integration reads of a command's context (the Context has all three). */
export interface CiHost {
  readonly env: Env;
  readonly io: IO;
  readonly globals: GlobalOptions;
}

export type AnnotationLevel = 'error' | 'warning' | 'notice';

/** A problem to show on a file of the pull request (or, without a file, on the run). */
export interface Annotation {
  level?: AnnotationLevel;
  message: string;
  title?: string;
  /** A path as the user gave it: made relative to GITHUB_WORKSPACE when inside it. */
  file?: string;
  line?: number;
  endLine?: number;
  col?: number;
  endColumn?: number;
}

/** Step outputs by name; undefined values are left out. */
export type Outputs = Readonly<Record<string, string | number | boolean | undefined>>;

/** The most a step's summary may hold: beyond it the runner shows none of it. */
export const SUMMARY_LIMIT = 1024 * 1024;
const CUT_NOTE = "\n_The rest of aip's summary is left out: a step's summary holds at most 1 MiB._\n";

/** The file's size in bytes; 0 when it cannot be read (append reports the failure to write it). */
function fileSize(file: string): number {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
}

export class GitHubActions {
  private readonly masked = new Set<string>();
  private summaryCut = false;

  constructor(private readonly host: CiHost) {}

  /** Writes `outputs` to $GITHUB_OUTPUT (nothing when the variable is unset: not a runner's step). */
  setOutputs(outputs: Outputs): void {
    const file = this.host.env.GITHUB_OUTPUT;
    if (!file) return;
    let text = '';
    for (const [name, value] of Object.entries(outputs)) {
      if (value === undefined) continue;
      try {
        text += keyValueEntry(name, this.clean(String(value)));
      } catch (error) {
        this.host.io.warn(`output ${name} not set: ${(error as Error).message}`);
      }
    }
    if (text) this.append(file, text, 'step outputs');
  }

  /**
   * Appends Markdown to $GITHUB_STEP_SUMMARY (nothing when the variable is unset). A part that would
   * take the file past the runner's limit is left out, with a line that says so: past it the runner
   * drops the step's whole summary (actions/runner FileCommandManager.cs, AttachmentSizeLimit, 1 MiB).
   */
  appendSummary(markdown: string): void {
    const file = this.host.env.GITHUB_STEP_SUMMARY;
    if (!file) return;
    const text = `${this.clean(markdown).replace(/\n?$/, '\n')}`;
    const size = fileSize(file);
    if (size + Buffer.byteLength(text) <= SUMMARY_LIMIT - CUT_NOTE.length)
      this.append(file, text, 'step summary');
    else if (size + CUT_NOTE.length <= SUMMARY_LIMIT && !this.summaryCut) {
      this.summaryCut = true;
      this.append(file, CUT_NOTE, 'step summary');
      this.host.io.warn("the step summary is full (1 MiB, the runner's limit): the rest of it is left out");
    }
  }

  /** `::error file=…,line=…,title=…::message` (or warning, notice). */
  annotate(annotation: Annotation): void {
    const { level = 'error', message, title, file, line, endLine, col, endColumn } = annotation;
    // The order of @actions/core's toCommandProperties.
    const properties = {
      title: title === undefined ? undefined : redacted(title),
      file: file === undefined ? undefined : redacted(this.workspacePath(file)),
      line,
      endLine,
      col,
      endColumn,
    };
    this.line(workflowCommand(level, properties, redacted(message)));
  }

  /** A failure of the whole command, as one `::error::` line. */
  error(message: string, title?: string): void {
    this.annotate({ message, title });
  }

  /**
   * Tells the runner to mask `secret` in the log from now on (every step's output, aip's children's
   * included). The runner refuses an empty one; once per secret is enough.
   */
  mask(secret: string | undefined): void {
    if (!secret || this.masked.has(secret)) return;
    this.masked.add(secret);
    // Written as it is: masked, the line would teach the runner the fingerprint instead of the key.
    this.host.io.workflowCommand(workflowCommand('add-mask', {}, secret));
  }

  /** A workflow command, its parts masked and escaped already: the controls left are made visible. */
  private line(command: string): void {
    this.host.io.workflowCommand(sanitize(command));
  }

  /** Outside text as every write of aip shows it: controls made visible, keys masked. */
  private clean(text: string): string {
    return redacted(sanitize(text));
  }

  /** The path as the runner matches it against the repository: relative to the workspace, with /. */
  private workspacePath(file: string): string {
    const workspace = this.host.env.GITHUB_WORKSPACE;
    if (!workspace) return file;
    const inside = relative(resolve(workspace), resolve(file));
    if (inside === '' || inside.startsWith('..') || isAbsolute(inside)) return file;
    return inside.split(sep).join('/');
  }

  /** Appends, never truncates; a failure is a warning, and the command's result stands. */
  private append(file: string, text: string, what: string): void {
    try {
      appendFileSync(file, text, { encoding: 'utf8', flag: 'a' });
    } catch (error) {
      const reason = isFsError(error) ? describeFsError(error) : (error as Error).message;
      this.host.io.warn(`cannot write the ${what} to ${file}: ${reason}`);
    }
  }
}

/** Keys masked before escaping: escaped, a key with a "%" or "," in it would no longer be found. */
function redacted(text: string): string {
  return redactUrlSecrets(redactSecrets(text));
}

/** One integration per run, found from the run's IO: the one object every layer is handed. */
const instances = new WeakMap<IO, GitHubActions>();

/** The GitHub Actions integration of this run, or undefined when it is off. */
export function githubActions(host: CiHost): GitHubActions | undefined {
  if (!onGitHubActions(host.env, host.globals.ci)) return undefined;
  let gha = instances.get(host.io);
  if (!gha) {
    gha = new GitHubActions(host);
    instances.set(host.io, gha);
  }
  return gha;
}

/**
 * The integration of the run that `io` belongs to, for code handed only the IO (the validators): it
 * exists once the command has started on GitHub Actions (start.ts).
 */
export function githubActionsOf(io: IO): GitHubActions | undefined {
  return instances.get(io);
}
