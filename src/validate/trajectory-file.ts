// Reading a trajectory-group file for sending: every group checked, every problem reported (as
// file:line: path: problem, on stderr; on CI as annotations too), and nothing returned, so nothing
// sent, if there is one.

import { lineLimitFrom } from '../api/limits.js';
import { annotateProblems } from '../ci/problems.js';
import type { Context } from '../context.js';
import { UsageError } from '../errors/errors.js';
import { openSource } from '../fs/open-source.js';
import { type CheckedFile, checkDocuments, problemLines, requireDocuments } from './check-file.js';
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
  /** Say so when a group has no trajectories (off for a file aip wrote: its summary said it). */
  warnEmpty = true,
): Promise<TrajectoryFile> {
  const stats = emptyGroupStats();
  const source = openSource(path, ctx.io, lineLimitFrom(ctx.env));
  const empty: EmptyGroups = { count: 0, first: undefined };
  const checked = await checkDocuments(
    source,
    (value) => {
      const before = stats.trajectories;
      const issues = checkGroup(value, stats);
      if (issues.length === 0 && stats.trajectories === before) {
        empty.count++;
        empty.first ??= stats.groups;
      }
      return issues;
    },
    { collect },
  );
  requireDocuments(checked, 'trajectory groups');
  annotateProblems(ctx.io, checked, 'invalid trajectory group');
  if (empty.count > 0 && warnEmpty) ctx.io.warn(emptyGroupsWarning(checked.name, empty));
  return { groups: checked.values, stats, checked };
}

/** Groups with no trajectories; `first` counted from 1 among the file's valid groups. */
interface EmptyGroups {
  count: number;
  first: number | undefined;
}

/**
 * The contract takes a group with no trajectories (`{"trajectories": []}`), so it is sent; but it
 * holds nothing to train on or to log, which is almost always a generator's mistake.
 */
function emptyGroupsWarning(name: string, empty: EmptyGroups): string {
  const count = empty.count === 1 ? 'a group has' : `${empty.count} groups have`;
  const where = empty.count === 1 ? `group ${empty.first}` : `the first is group ${empty.first}`;
  return `${name}: ${count} no trajectories (${where}): valid, but there is nothing in it to learn from`;
}

/** The groups of a file, or a usage error (exit 2) after listing every problem on stderr. */
export async function readTrajectoryGroups(
  ctx: Context,
  path: string,
  options: { warnEmpty?: boolean } = {},
): Promise<{ groups: unknown[]; stats: GroupStats }> {
  const { groups, stats, checked } = await checkTrajectoryFile(ctx, path, true, options.warnEmpty);
  if (checked.problemCount > 0) {
    for (const line of problemLines(checked)) ctx.io.err(line);
    throw new UsageError(
      `${checked.name}: ${checked.problemCount} problem${checked.problemCount === 1 ? '' : 's'} in ${checked.documents} trajectory group${checked.documents === 1 ? '' : 's'}; nothing was sent`,
    );
  }
  return { groups, stats };
}
