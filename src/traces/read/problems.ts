// Problems found in an input, as `file:line: path: message`: all of them counted, the first
// MAX_LISTED_PROBLEMS kept for the report.

import type { Problem } from '../../validate/check-file.js';
import { MAX_LISTED_PROBLEMS } from '../../validate/check-file.js';
import { formatPath } from '../../validate/schema.js';
import type { JsonPath } from '../otlp/otlp-json.js';

export class Problems {
  list: Problem[] = [];
  count = 0;

  /** Line 0: a binary input, where lines mean nothing. */
  add(line: number, path: JsonPath | undefined, message: string): void {
    this.count++;
    if (this.list.length < MAX_LISTED_PROBLEMS) {
      this.list.push(path === undefined ? { line, message } : { line, path: formatPath(path), message });
    }
  }

  /** Takes in problems found elsewhere (a worker's), keeping the earliest lines. */
  merge(list: Problem[], count: number): void {
    this.count += count;
    this.list = [...this.list, ...list].sort((a, b) => a.line - b.line).slice(0, MAX_LISTED_PROBLEMS);
  }
}
