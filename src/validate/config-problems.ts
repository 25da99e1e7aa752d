// The problems of a settings object read from a file (`jobs create --config settings.json`), as
// annotations on the lines of that file on CI: `experimental_config.learning_rate: …` lands on the
// line where learning_rate is. A problem whose setting is not in the file (a flag gave it) is told by
// the command's error alone. For `jobs create` to call where it checks the settings.

import { readFileSync } from 'node:fs';
import { annotateProblems, type ListedProblem } from '../ci/problems.js';
import { isObject } from '../lib/json.js';
import type { IO } from '../output/io.js';
import { MAX_LISTED_PROBLEMS } from './check-file.js';
import { lineOfPath } from './locate.js';
import type { Path } from './schema.js';

export interface SettingProblem {
  /** The path of the setting within the file's object: ['learning_rate'], ['schedule', 0]. */
  path: Path;
  /** As the command lists it: "experimental_config.learning_rate: must be greater than 0". */
  message: string;
}

/**
 * Annotates `problems` of the settings read from `file` (a path; `@path` as --config takes it), when
 * the run is on GitHub Actions, each on the line of its setting. A problem of a setting the file does
 * not hold (a flag gave it) is left to the command's error annotation: the file is not at fault.
 */
export function annotateConfigProblems(io: IO, file: string, problems: readonly SettingProblem[]): void {
  const path = file.startsWith('@') ? file.slice(1) : file;
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return; // Read a moment ago by the command, gone since: its error says what was wrong.
  }
  const located = problems
    .map((problem) => ({ line: lineInFile(text, problem.path), message: problem.message }))
    .filter((problem) => problem.line > 0);
  const listed: ListedProblem[] = located.slice(0, MAX_LISTED_PROBLEMS);
  annotateProblems(io, { name: path, problems: listed, problemCount: located.length }, 'invalid setting');
}

/** The line of the setting, or 0 when the file does not hold it (it came from a flag). */
function lineInFile(text: string, path: Path): number {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return 0;
  }
  if (path.length === 0) return 1;
  if (!isObject(parsed) || !Object.hasOwn(parsed, String(path[0]))) return 0;
  // A part further down that is missing: the line of its deepest ancestor in the file.
  return lineOfPath(text, path, 1);
}
