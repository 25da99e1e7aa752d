// One journal event into the store's rows (fold.ts calls it inside the transaction of its batch). The
// lines come from files anyone with this user's rights could have written: each field is taken only
// when it has the type events.ts gives it, and kinds this aip does not know (a newer aip's) are skipped.

import { isObject } from '../lib/json.js';
import type { SqliteDriver, SqliteStatement } from './sqlite.js';

export interface EventTarget {
  db: SqliteDriver;
  /** The invocation id of each run seen: a Map, as run keys come from files. */
  ids: Map<string, number | undefined>;
  statements: Map<string, SqliteStatement>;
}

export function eventTarget(db: SqliteDriver): EventTarget {
  return { db, ids: new Map(), statements: new Map() };
}

function statement(target: EventTarget, sql: string): SqliteStatement {
  let made = target.statements.get(sql);
  if (!made) {
    made = target.db.prepare(sql);
    target.statements.set(sql, made);
  }
  return made;
}

const text = (value: unknown): string | null => (typeof value === 'string' ? value : null);
const count = (value: unknown): number =>
  typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : 0;
const integer = (value: unknown): number | null =>
  typeof value === 'number' && Number.isSafeInteger(value) ? value : null;

function idOf(target: EventTarget, run: string): number | undefined {
  if (target.ids.has(run)) return target.ids.get(run);
  const row = statement(target, 'SELECT id FROM invocations WHERE run = ?').get(run);
  const id = row === undefined ? undefined : Number(row.id);
  if (id !== undefined) target.ids.set(run, id);
  return id;
}

function begin(target: EventTarget, e: Record<string, unknown>, run: string): void {
  const argv = Array.isArray(e.argv) ? e.argv.filter((word) => typeof word === 'string') : [];
  statement(
    target,
    `INSERT OR IGNORE INTO invocations (run, at, command, argv, profile, training_url, inference_url,
      trace_url, project, cwd, version, pid, host) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(
    run,
    text(e.at) ?? '',
    text(e.command) ?? '',
    JSON.stringify(argv),
    text(e.profile) ?? '',
    text(e.training_url),
    text(e.inference_url),
    text(e.trace_url),
    text(e.project),
    text(e.cwd),
    text(e.version),
    integer(e.pid),
    text(e.host),
  );
  target.ids.delete(run);
}

function rows(target: EventTarget, kind: string, e: Record<string, unknown>, id: number): boolean {
  const at = text(e.at) ?? '';
  switch (kind) {
    case 'note':
      statement(target, 'INSERT INTO notes (invocation, at, model, job, ref) VALUES (?, ?, ?, ?, ?)').run(
        id,
        at,
        text(e.model),
        text(e.job),
        text(e.ref),
      );
      return true;
    case 'usage':
      statement(
        target,
        `INSERT INTO usage (invocation, at, api, model, purpose, prompt_tokens, completion_tokens, samples, job)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ).run(
        id,
        at,
        e.api === 'training' ? 'training' : 'inference',
        text(e.model) ?? '',
        text(e.purpose) ?? '',
        count(e.prompt_tokens),
        count(e.completion_tokens),
        count(e.samples),
        text(e.job),
      );
      return true;
    case 'created':
      if (text(e.id) === null || (e.what !== 'model' && e.what !== 'job')) return false;
      statement(
        target,
        `INSERT OR IGNORE INTO created (invocation, at, what, object_id, name, kind, base_url, profile)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      ).run(
        id,
        at,
        e.what,
        text(e.id),
        text(e.name),
        text(e.kind),
        text(e.base_url) ?? '',
        text(e.profile) ?? '',
      );
      return true;
    case 'body': {
      const request = JSON.stringify(e.request ?? null);
      const response = JSON.stringify(e.response ?? null);
      statement(
        target,
        `INSERT INTO bodies (invocation, at, api, model, purpose, request, response, bytes)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      ).run(
        id,
        at,
        e.api === 'training' ? 'training' : 'inference',
        text(e.model) ?? '',
        text(e.purpose) ?? '',
        request,
        response,
        Buffer.byteLength(request) + Buffer.byteLength(response),
      );
      return true;
    }
    case 'end':
      statement(
        target,
        'UPDATE invocations SET exit = ?, error = ?, duration_ms = ?, ended_at = ? WHERE id = ?',
      ).run(integer(e.exit), text(e.error), integer(e.duration_ms), at, id);
      return true;
    default:
      return false;
  }
}

/**
 * Writes the event's rows; returns its kind when it was one this aip folds. An event of a run with no
 * invocation (its `begin` not seen, or the invocation pruned since) has nothing to join and is skipped.
 */
export function applyEvent(target: EventTarget, event: unknown): string | undefined {
  if (!isObject(event) || typeof event.k !== 'string' || typeof event.run !== 'string') return undefined;
  const kind = event.k;
  if (kind === 'begin') {
    begin(target, event, event.run);
    return kind;
  }
  const id = idOf(target, event.run);
  if (id === undefined) return undefined;
  return rows(target, kind, event, id) ? kind : undefined;
}
