// Journal files as aip's journal (src/history/journal.ts) writes them, for the fold tests: one file a
// process, named `<epochMs>-<pid>-<hostTag>-<random>.jsonl`, one event a line.

import { appendFileSync, mkdirSync, readdirSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import type { HistoryEvent } from '../../src/history/events.js';
import { historyDir, JOURNAL_DIR, journalHostTag } from '../../src/history/paths.js';

type Env = Record<string, string | undefined>;

/** A pid no process has (above Linux's pid_max of 2^22): its file is a killed process's. */
export const DEAD_PID = 4_194_304 + 17;

let counter = 0;

export function journalDir(env: Env): string {
  return join(historyDir(env), JOURNAL_DIR);
}

export interface JournalFile {
  path: string;
  run: string;
  append(...events: HistoryEvent[]): void;
  /** Text as it is (a torn line). */
  appendRaw(text: string): void;
}

/**
 * A new journal file of process `pid` (by default this process's parent, which runs throughout: the
 * file of a process still running; not this process's own pid, whose files a fold here would know it
 * never opened), on `host`.
 */
export function journalFile(
  env: Env,
  options: { pid?: number; host?: string; at?: number } = {},
): JournalFile {
  const dir = journalDir(env);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const pid = options.pid ?? process.ppid;
  const tag = journalHostTag(options.host ?? hostname());
  counter++;
  const path = join(
    dir,
    `${options.at ?? Date.now()}-${pid}-${tag}-${counter.toString(16).padStart(6, '0')}.jsonl`,
  );
  const run = `run${counter}-${Math.random().toString(36).slice(2, 8)}`;
  appendFileSync(path, '', { mode: 0o600 });
  return {
    path,
    run,
    append: (...events) => appendFileSync(path, events.map((e) => `${JSON.stringify(e)}\n`).join('')),
    appendRaw: (text) => appendFileSync(path, text),
  };
}

export function begin(run: string, over: Partial<HistoryEvent> = {}): HistoryEvent {
  return {
    k: 'begin',
    v: 1,
    run,
    at: '2026-11-20T10:00:00.000Z',
    pid: process.pid,
    host: hostname(),
    command: 'rollouts',
    argv: ['rollouts', '-m', 'agent', 'tasks.jsonl'],
    profile: 'default',
    training_url: 'http://127.0.0.1:4010/v1',
    inference_url: 'http://127.0.0.1:4010/v1',
    trace_url: 'http://127.0.0.1:4010/v1/traces',
    cwd: '/work',
    version: '1.0.0',
    ...over,
  } as HistoryEvent;
}

export function usage(run: string, n: number, over: Record<string, unknown> = {}): HistoryEvent {
  return {
    k: 'usage',
    run,
    at: `2026-11-20T10:00:${String(n % 60).padStart(2, '0')}.000Z`,
    api: 'inference',
    model: 'team/project/agent',
    purpose: 'sample',
    prompt_tokens: 10 + n,
    completion_tokens: 5,
    samples: 1,
    ...over,
  } as HistoryEvent;
}

export function end(run: string, exit = 0, over: Record<string, unknown> = {}): HistoryEvent {
  return {
    k: 'end',
    run,
    at: '2026-11-20T10:05:00.000Z',
    exit,
    duration_ms: 300_000,
    ...over,
  } as HistoryEvent;
}

export function journalNames(env: Env): string[] {
  try {
    return readdirSync(journalDir(env));
  } catch {
    return [];
  }
}
