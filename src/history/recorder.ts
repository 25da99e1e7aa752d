// What a command tells the history (events.ts) as it runs: it begins with the first request to the
// platform, then records what the command works on, what was created, each answer's token usage (and,
// with bodies on, the request and answer), and how the command ended. Off (switch.ts), it does nothing.
//
// Cheap by design: nothing is read or opened until the first request, and each event is one write to
// the command's own journal file (journal.ts). Budgets count for themselves (budget/): they hold with
// the history off.

import { hostname } from 'node:os';
import type { BeginEvent, CreatedEvent, HistoryEvent, NoteEvent, UsageEvent } from './events.js';
import { JOURNAL_FORMAT } from './events.js';
import { Journal } from './journal.js';
import { historySwitch } from './switch.js';

/** What the recorder is told of the command, asked only when it begins. */
export interface RecorderSource {
  env: Record<string, string | undefined>;
  historyDir: () => string;
  warn: (message: string) => void;
  /** The command's path and words, and the settings it resolved; asked at the first request. */
  invocation: () => Omit<BeginEvent, 'k' | 'v' | 'run' | 'at' | 'pid' | 'host'>;
}

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
    let invocation: ReturnType<RecorderSource['invocation']>;
    try {
      invocation = this.source.invocation();
    } catch {
      // Settings that do not resolve: the command reports that itself.
      return false;
    }
    if (UNRECORDED.test(invocation.command)) return false;
    const dir = this.source.historyDir();
    const choice = historySwitch(this.source.env, dir);
    if (choice.problem) this.warnOnce(`history: ${choice.problem}`);
    if (!choice.enabled) return false;
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
