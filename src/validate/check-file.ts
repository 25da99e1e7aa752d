// Validates every document of a file (or stdin) and reports each problem as file:line: path: message,
// all of them in one run (the list is capped, the count is not). Documents are parsed with JSON.parse;
// only a failing one is read again to find the line of each problem (locate.ts).

import { DEFAULT_LINE_BYTES, lineTooLarge } from '../api/limits.js';
import type { Source } from '../fs/open-source.js';
import { type DocumentFormat, type JsonDocument, readDocuments } from './documents.js';
import { findSyntaxError, lineAt, lineOfPath } from './locate.js';
import { formatPath, type Issue } from './schema.js';

export const MAX_LISTED_PROBLEMS = 50;

export interface Problem {
  line: number;
  /** The JSON path of the value at fault; absent for problems of syntax or framing. */
  path?: string;
  message: string;
}

export interface CheckedFile {
  name: string;
  format: DocumentFormat;
  documents: number;
  /** The first MAX_LISTED_PROBLEMS problems. */
  problems: Problem[];
  problemCount: number;
  /** The parsed documents, when asked for and when there was no problem. */
  values: unknown[];
}

function syntaxProblem(doc: JsonDocument, error: unknown): Problem {
  const located = findSyntaxError(doc.text);
  if (located)
    return { line: lineAt(doc.text, located.offset, doc.line), message: `invalid JSON: ${located.message}` };
  return { line: doc.line, message: `invalid JSON: ${(error as Error).message}` };
}

export async function checkDocuments(
  source: Source,
  check: (value: unknown) => Issue[],
  options: { collect?: boolean } = {},
): Promise<CheckedFile> {
  const result: CheckedFile = {
    name: source.name,
    format: 'jsonl',
    documents: 0,
    problems: [],
    problemCount: 0,
    values: [],
  };
  const add = (problem: Problem) => {
    result.problemCount++;
    if (result.problems.length < MAX_LISTED_PROBLEMS) result.problems.push(problem);
  };
  const maxLineBytes = source.maxLineBytes ?? DEFAULT_LINE_BYTES;
  for await (const event of readDocuments(source.stream, { maxLineBytes })) {
    if (event.kind === 'format') {
      result.format = event.format;
      continue;
    }
    if (event.kind === 'problem') {
      add({ line: event.line, message: event.problem });
      continue;
    }
    if (event.kind === 'tooLarge') {
      // Passed over unread: a problem at its line, and the reading goes on with the next.
      result.documents++;
      add(
        result.format === 'array'
          ? { line: event.line, path: `[${event.index}]`, message: lineTooLarge(maxLineBytes, 'the element') }
          : { line: event.line, message: lineTooLarge(maxLineBytes) },
      );
      continue;
    }
    result.documents++;
    let value: unknown;
    try {
      value = JSON.parse(event.text);
    } catch (error) {
      add(syntaxProblem(event, error));
      continue;
    }
    const issues = check(value);
    if (issues.length === 0) {
      if (options.collect && result.problemCount === 0) result.values.push(value);
      continue;
    }
    const prefix = result.format === 'array' ? [event.index] : [];
    for (const issue of issues) {
      add({
        line: lineOfPath(event.text, issue.path, event.line),
        path: formatPath([...prefix, ...issue.path]),
        message: issue.msg,
      });
    }
  }
  if (result.problemCount > 0) result.values = [];
  return result;
}

/** A file with no documents at all is a problem too (an empty file, or an empty array). */
export function requireDocuments(checked: CheckedFile, what: string): void {
  if (checked.documents > 0 || checked.problemCount > 0) return;
  checked.problemCount = 1;
  checked.problems.push({ line: 1, message: `no ${what}: the file is empty` });
}

/** The report lines: one per listed problem, and a count of the rest. (Line 0: a binary input.) */
export function problemLines(checked: Pick<CheckedFile, 'name' | 'problems' | 'problemCount'>): string[] {
  const lines = checked.problems.map(
    (p) =>
      `${checked.name}${p.line > 0 ? `:${p.line}` : ''}: ${p.path === undefined ? '' : `${p.path}: `}${p.message}`,
  );
  const hidden = checked.problemCount - checked.problems.length;
  if (hidden > 0) lines.push(`… and ${hidden} more problem${hidden === 1 ? '' : 's'}`);
  return lines;
}
