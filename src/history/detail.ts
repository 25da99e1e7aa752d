// One invocation whole (`aip history show`): found by its id or the start of its run key, with what
// it noted, created, used and (when kept) said.

import { UsageError } from '../errors/errors.js';
import type { InvocationDetail } from './query.js';
import { api, numOrNull, parsed, SUMMARY, str, strOrNull, summaryOf } from './rows.js';
import type { SqliteDriver, SqlRow } from './sqlite.js';

/** The invocation `idOrRun` names: its id, or a unique prefix of its run key. */
export function findInvocation(db: SqliteDriver, idOrRun: string): SqlRow | undefined {
  const wanted = idOrRun.trim();
  if (/^\d+$/.test(wanted)) {
    const byId = db.prepare(`SELECT ${SUMMARY} FROM invocations i WHERE i.id = ?`).get(Number(wanted));
    if (byId) return byId;
  }
  const matches = db
    .prepare(`SELECT ${SUMMARY} FROM invocations i WHERE substr(i.run, 1, length(?1)) = ?1 LIMIT 2`)
    .all(wanted);
  if (matches.length > 1)
    throw new UsageError(
      `${JSON.stringify(wanted)} is the start of more than one run key: give more of it, or the id`,
    );
  return matches[0];
}

export function detailOf(db: SqliteDriver, row: SqlRow): InvocationDetail {
  const id = Number(row.id);
  const { created: _ids, ...summary } = summaryOf(row);
  const notes = db
    .prepare('SELECT at, model, job, ref FROM notes WHERE invocation = ? ORDER BY rowid')
    .all(id);
  const created = db
    .prepare(
      'SELECT at, what, object_id, name, kind, base_url, profile FROM created WHERE invocation = ? ORDER BY rowid',
    )
    .all(id);
  const usage = db
    .prepare(
      `SELECT api, model, purpose, count(*) AS requests, sum(samples) AS samples,
         sum(prompt_tokens) AS prompt_tokens, sum(completion_tokens) AS completion_tokens
       FROM usage WHERE invocation = ? GROUP BY api, model, purpose ORDER BY min(rowid)`,
    )
    .all(id);
  const bodies = db
    .prepare(
      'SELECT at, api, model, purpose, request, response FROM bodies WHERE invocation = ? ORDER BY rowid',
    )
    .all(id);
  return {
    ...summary,
    training_url: strOrNull(row.training_url),
    inference_url: strOrNull(row.inference_url),
    trace_url: strOrNull(row.trace_url),
    project: strOrNull(row.project),
    cwd: strOrNull(row.cwd),
    version: strOrNull(row.version),
    pid: numOrNull(row.pid),
    host: strOrNull(row.host),
    notes: notes.map((n) => ({
      at: str(n.at),
      model: strOrNull(n.model),
      job: strOrNull(n.job),
      ref: strOrNull(n.ref),
    })),
    created: created.map((c) => ({
      at: str(c.at),
      what: c.what === 'model' ? 'model' : 'job',
      object_id: str(c.object_id),
      name: strOrNull(c.name),
      kind: strOrNull(c.kind),
      base_url: str(c.base_url),
      profile: str(c.profile),
    })),
    usage: usage.map((u) => ({
      api: api(u.api),
      model: str(u.model),
      purpose: str(u.purpose),
      requests: Number(u.requests),
      samples: Number(u.samples),
      prompt_tokens: Number(u.prompt_tokens),
      completion_tokens: Number(u.completion_tokens),
    })),
    bodies: bodies.map((b) => ({
      at: str(b.at),
      api: api(b.api),
      model: str(b.model),
      purpose: str(b.purpose),
      request: parsed(b.request),
      response: parsed(b.response),
    })),
  };
}
