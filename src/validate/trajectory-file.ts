// Reading a trajectory-group file for sending: every group checked, every problem reported (as
// file:line: path: problem, on stderr; on CI as annotations too), and nothing returned, so nothing
// sent, if there is one.

import { lineLimitFrom } from '../api/limits.js';
import { annotateProblems } from '../ci/problems.js';
import type { Context } from '../context.js';
import { UsageError } from '../errors/errors.js';
import {
  type CheckedFile,
  checkDocuments,
  openSource,
  problemLines,
  requireDocuments,
} from './check-file.js';
import { checkGroup, emptyGroupStats, type GroupStats } from './trajectory.js';

export interface TrajectoryFile {
  groups: unknown[];
  stats: GroupStats;
  checked: CheckedFile;
}

/** Checks a file of trajectory groups; `collect` keeps the parsed groups (to send them). */
export async function checkTrajectoryFile(
  ctx: Context,
  path: string,
  collect: boolean,
): Promise<TrajectoryFile> {
  const stats = emptyGroupStats();
  const source = openSource(path, ctx.io, lineLimitFrom(ctx.env));
  const checked = await checkDocuments(source, (value) => checkGroup(value, stats), { collect });
  requireDocuments(checked, 'trajectory groups');
  annotateProblems(ctx.io, checked, 'invalid trajectory group');
  return { groups: checked.values, stats, checked };
}

/** The groups of a file, or a usage error (exit 2) after listing every problem on stderr. */
export async function readTrajectoryGroups(
  ctx: Context,
  path: string,
): Promise<{ groups: unknown[]; stats: GroupStats }> {
  const { groups, stats, checked } = await checkTrajectoryFile(ctx, path, true);
  if (checked.problemCount > 0) {
    for (const line of problemLines(checked)) ctx.io.err(line);
    throw new UsageError(
      `${checked.name}: ${checked.problemCount} problem${checked.problemCount === 1 ? '' : 's'} in ${checked.documents} trajectory group${checked.documents === 1 ? '' : 's'}; nothing was sent`,
    );
  }
  return { groups, stats };
}
