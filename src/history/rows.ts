// The history's rows as the read API gives them (query.ts): SQL values taken as the types they were
// written with, the columns of an invocation's summary, and the WHERE clause of a filter.

import type { HistoryFilter, InvocationSummary } from './query.js';
import type { SqlRow, SqlValue } from './sqlite.js';

export const str = (value: SqlValue | undefined): string =>
  value === null || value === undefined ? '' : String(value);
export const strOrNull = (value: SqlValue | undefined): string | null =>
  value === null || value === undefined ? null : String(value);
export const numOrNull = (value: SqlValue | undefined): number | null =>
  value === null || value === undefined ? null : Number(value);
export const api = (value: SqlValue | undefined): 'training' | 'inference' =>
  value === 'training' ? 'training' : 'inference';

export function parsed(value: SqlValue | undefined): unknown {
  try {
    return JSON.parse(str(value));
  } catch {
    return null;
  }
}
/** The columns of an invocation with its usage summed and its created ids, as listed. */
export const SUMMARY = `i.*,
  (SELECT count(*) FROM usage u WHERE u.invocation = i.id) AS requests,
  (SELECT coalesce(sum(samples), 0) FROM usage u WHERE u.invocation = i.id) AS samples,
  (SELECT coalesce(sum(prompt_tokens), 0) FROM usage u WHERE u.invocation = i.id) AS prompt_tokens,
  (SELECT coalesce(sum(completion_tokens), 0) FROM usage u WHERE u.invocation = i.id) AS completion_tokens,
  (SELECT json_group_array(object_id) FROM created c WHERE c.invocation = i.id) AS created_ids`;

export function summaryOf(row: SqlRow): InvocationSummary {
  const argv = parsed(row.argv);
  const created = parsed(row.created_ids);
  return {
    id: Number(row.id),
    run: str(row.run),
    at: str(row.at),
    command: str(row.command),
    argv: Array.isArray(argv) ? argv.map(String) : [],
    profile: str(row.profile),
    exit: numOrNull(row.exit),
    error: strOrNull(row.error),
    duration_ms: numOrNull(row.duration_ms),
    ended_at: strOrNull(row.ended_at),
    requests: Number(row.requests),
    samples: Number(row.samples),
    prompt_tokens: Number(row.prompt_tokens),
    completion_tokens: Number(row.completion_tokens),
    created: Array.isArray(created) ? created.map(String) : [],
  };
}

/** A model matches as `aip jobs list --model` matches: whole, or by the end of team/project/name. */
const modelMatch = (column: string, p: string) =>
  `(lower(${column}) = lower(${p}) OR substr(lower(${column}), -length(${p}) - 1) = '/' || lower(${p}))`;

/** The WHERE clause of a filter, and its parameters (each condition on its own numbered parameter). */
export function whereOf(filter: HistoryFilter): { sql: string; params: SqlValue[] } {
  const conditions: string[] = [];
  const params: SqlValue[] = [];
  const add = (condition: (n: string) => string, value: string) => {
    params.push(value);
    conditions.push(condition(`?${params.length}`));
  };
  if (filter.since) add((p) => `i.at >= ${p}`, filter.since);
  if (filter.until) add((p) => `i.at < ${p}`, filter.until);
  if (filter.command) add((p) => `substr(i.command, 1, length(${p})) = ${p}`, filter.command.trim());
  if (filter.model)
    add((p) => {
      const match = (column: string) => modelMatch(column, p);
      return `(EXISTS (SELECT 1 FROM notes n WHERE n.invocation = i.id AND ${match('n.model')})
        OR EXISTS (SELECT 1 FROM usage u WHERE u.invocation = i.id AND ${match('u.model')})
        OR EXISTS (SELECT 1 FROM created c WHERE c.invocation = i.id AND c.what = 'model'
          AND (c.object_id = ${p} OR ${match('c.name')})))`;
    }, filter.model.trim());
  if (filter.job)
    add(
      (p) => `(EXISTS (SELECT 1 FROM notes n WHERE n.invocation = i.id AND n.job = ${p})
        OR EXISTS (SELECT 1 FROM usage u WHERE u.invocation = i.id AND u.job = ${p})
        OR EXISTS (SELECT 1 FROM created c WHERE c.invocation = i.id AND c.what = 'job' AND c.object_id = ${p}))`,
      filter.job.trim(),
    );
  if (filter.search)
    add((p) => {
      const has = (column: string) => `instr(lower(${column}), lower(${p})) > 0`;
      return `(${has('i.argv')} OR ${has('i.command')} OR ${has("coalesce(i.error, '')")}
        OR EXISTS (SELECT 1 FROM notes n WHERE n.invocation = i.id
          AND (${has("coalesce(n.model, '')")} OR ${has("coalesce(n.job, '')")} OR ${has("coalesce(n.ref, '')")}))
        OR EXISTS (SELECT 1 FROM usage u WHERE u.invocation = i.id AND ${has('u.model')})
        OR EXISTS (SELECT 1 FROM created c WHERE c.invocation = i.id
          AND (${has('c.object_id')} OR ${has("coalesce(c.name, '')")})))`;
    }, filter.search);
  return { sql: conditions.length > 0 ? `WHERE ${conditions.join(' AND ')}` : '', params };
}
