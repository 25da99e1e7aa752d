// What a command tells the history (events.ts) as it runs: it begins with the first request to the
// platform, then records what the command works on, what was created, each answer's token usage (and,
// with bodies on, the request and answer), and how the command ended. Off (switch.ts), it does nothing.
//
// Cheap by design: nothing is read or opened until the first request, and each event is one write to
// the command's own journal file (journal.ts). Budgets count for themselves (budget/): they hold with
// the history off.

import { readdirSync } from 'node:fs';
import { hostname } from 'node:os';
import { dirname } from 'node:path';
import { redactUrlSecrets } from '../output/secrets.js';
import type { BeginEvent, CreatedEvent, HistoryEvent, NoteEvent, UsageEvent } from './events.js';
import { JOURNAL_FORMAT } from './events.js';
import { Journal } from './journal.js';
import { historySwitch } from './switch.js';

/** What the recorder is told of the command, asked only when it begins. */
export interface RecorderSource {
  env: Record<string, string | undefined>;
  historyDir: () => string;
  warn: (message: string) => void;
  /**
   * The command's path and words, and the settings it resolved; asked at the first request. `bodies`:
   * whether what was said may be kept (history.bodies), in the command line too.
   */
  invocation: (bodies: boolean) => Omit<BeginEvent, 'k' | 'v' | 'run' | 'at' | 'pid' | 'host'>;
}

/** One recorded command in this many looks whether the journal needs folding (tidy). */
const TIDY_EVERY = 64;
/** More journal files than this, and they are folded into the store. */
export const TIDY_FILES = 1000;

/** Commands that talk only to a local thing of aip's own, or read the history itself: never recorded. */
const UNRECORDED = /^(emulator|completion|__complete|history|usage|help)\b/;

export type UsageInput = Omit<UsageEvent, 'k' | 'run' | 'at' | 'job'>;
export type Body = { request: unknown; response: unknown };

export class HistoryRecorder {
  private journal: Journal | undefined;
  private state: 'idle' | 'on' | 'off' = 'idle';
  private bodiesOn = false;
  private job: string | undefined;
  /** Notes made before the first request (a model resolved from the record): written after `begin`. */
  private pending: NoteEvent[] = [];
  private readonly startedAt = new Date();
  private readonly startedMs = Date.now();
  readonly run: string;
  private warned = false;

  constructor(private readonly source: RecorderSource) {
    const random = Math.floor(Math.random() * 0x1000000).toString(36);
    this.run = `${this.startedMs.toString(36)}-${process.pid.toString(36)}-${random}`;
  }

  /** Whether request and answer bodies are kept (history.bodies). */
  get bodies(): boolean {
    return this.contacted() && this.bodiesOn;
  }

  /** The command talks to the platform: the record begins (once). Whether it is kept. */
  contacted(): boolean {
    if (this.state !== 'idle') return this.state === 'on';
    this.state = 'off';
    const dir = this.source.historyDir();
    const choice = historySwitch(this.source.env, dir);
    if (!choice.enabled) return false;
    let invocation: ReturnType<RecorderSource['invocation']>;
    try {
      invocation = this.source.invocation(choice.bodies);
    } catch {
      // Settings that do not resolve (a corrupt config file): the command reports that itself.
      return false;
    }
    if (UNRECORDED.test(invocation.command)) return false;
    if (choice.problem) this.warnOnce(`history: ${choice.problem}`);
    this.state = 'on';
    this.bodiesOn = choice.bodies;
    this.journal = new Journal(dir, (message) => this.warnOnce(message));
    this.write({
      k: 'begin',
      v: JOURNAL_FORMAT,
      run: this.run,
      at: this.startedAt.toISOString(),
      pid: process.pid,
      host: hostname(),
      ...invocation,
    });
    for (const note of this.pending.splice(0)) this.write(note);
    return true;
  }

  note(note: Omit<NoteEvent, 'k' | 'run' | 'at'>): void {
    if (note.job) this.job = note.job;
    const event: NoteEvent = { k: 'note', run: this.run, at: now(), ...note };
    if (this.state === 'on') this.write(event);
    else if (this.state === 'idle') this.pending.push(event);
  }

  created(created: Omit<CreatedEvent, 'k' | 'run' | 'at'>): void {
    if (this.contacted()) this.write({ k: 'created', run: this.run, at: now(), ...created });
    if (created.what === 'job') this.note({ job: created.id });
  }

  /** One answer's usage; with bodies on, the request and the answer too. */
  usage(usage: UsageInput, body?: Body): void {
    if (!this.contacted()) return;
    const at = now();
    this.write({ k: 'usage', run: this.run, at, ...usage, ...(this.job ? { job: this.job } : {}) });
    if (body && this.bodiesOn)
      this.write({
        k: 'body',
        run: this.run,
        at,
        api: usage.api,
        model: usage.model,
        purpose: usage.purpose,
        request: body.request,
        response: body.response,
      });
  }

  /** The command ended (main): its exit code and, for a failure, the line printed. */
  end(exit: number, error?: string): void {
    if (this.state !== 'on') return;
    this.write({
      k: 'end',
      run: this.run,
      at: now(),
      exit,
      ...(error ? { error } : {}),
      duration_ms: Date.now() - this.startedMs,
    });
    this.journal?.close();
    this.state = 'off';
  }

  /**
   * After the end, now and then (one command in TIDY_EVERY): when the journal holds more than
   * TIDY_FILES files, folds them into the store, so that the journal stays bounded for someone who
   * never reads the history. Best effort: a store in use or that cannot be written is left for later,
   * silently (the command has ended well or not on its own account).
   */
  async tidy(random: () => number = Math.random): Promise<void> {
    if (!this.journal?.file || random() >= 1 / TIDY_EVERY) return;
    try {
      if (readdirSync(dirname(this.journal.file)).length <= TIDY_FILES) return;
      const { withHistoryStore } = await import('./store.js');
      await withHistoryStore(this.source.env, () => undefined, { waitMs: 0 });
    } catch {
      // left for the next command, or for `aip history`, which says what is wrong
    }
  }

  /** One warning a command about its history, whatever goes wrong with it. */
  private warnOnce(message: string): void {
    if (this.warned) return;
    this.warned = true;
    this.source.warn(message);
  }

  private write(event: HistoryEvent): void {
    this.journal?.append(event);
  }
}

const now = () => new Date().toISOString();

/**
 * The command line as the history keeps it: credentials in URLs masked (--reward-url …?token=…; the
 * keys aip knows are masked by the journal itself), and `content`, what it says to a model, replaced
 * by its length unless history bodies are on.
 */
export function historyArgv(argv: readonly string[], content: readonly string[]): string[] {
  const said = new Set(content);
  const conceal = (text: string) => (said.has(text) ? `<${text.length} characters>` : text);
  return argv.map((word) => {
    const eq = word.startsWith('-') ? word.indexOf('=') : -1;
    // --system=TEXT, and -sTEXT (a short option with its value joined).
    const short = /^-[A-Za-z]./.test(word) && eq < 0 && said.has(word.slice(2));
    const kept =
      eq > 0
        ? `${word.slice(0, eq + 1)}${conceal(word.slice(eq + 1))}`
        : short
          ? `${word.slice(0, 2)}${conceal(word.slice(2))}`
          : conceal(word);
    return redactUrlSecrets(kept);
  });
}
