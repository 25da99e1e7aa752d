// The problems an offline check found in a file (trajectory groups, SFT examples, spans, a --config
// file), each as an annotation on its line in the pull request, as `file:line: path: problem` lists
// it: the listed ones (the first MAX_LISTED_PROBLEMS of validate/check-file.ts), then one for the rest
// ("… and 12 more problems"), so the annotations are capped as the listing is.

import type { IO } from '../output/io.js';
import { githubActionsOf } from './github.js';

/** A problem as the validators list it (validate/check-file.ts Problem). */
export interface ListedProblem {
  /** 0: no line (a binary input). */
  line: number;
  path?: string;
  message: string;
}

export interface ListedProblems {
  /** The path as given, or "stdin". */
  name: string;
  problems: readonly ListedProblem[];
  problemCount: number;
}

/** Annotates `listed` when the run that `io` belongs to is on GitHub Actions; otherwise nothing. */
export function annotateProblems(io: IO, listed: ListedProblems, title: string): void {
  const gha = githubActionsOf(io);
  if (!gha || listed.problemCount === 0) return;
  const file = listed.name === 'stdin' ? undefined : listed.name;
  for (const problem of listed.problems) {
    gha.annotate({
      file,
      line: problem.line > 0 ? problem.line : undefined,
      title,
      message: problem.path === undefined ? problem.message : `${problem.path}: ${problem.message}`,
    });
  }
  const hidden = listed.problemCount - listed.problems.length;
  if (hidden > 0) {
    gha.annotate({ file, title, message: `… and ${hidden} more problem${hidden === 1 ? '' : 's'}` });
  }
}
