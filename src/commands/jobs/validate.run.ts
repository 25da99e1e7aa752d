// `aip jobs validate rl|sft <file>`: the offline checks alone. The problems are this command's result,
// so they go to stdout (one `file:line: path: problem` per line); exit 2 when there is any.

import { lineLimitFrom } from '../../api/limits.js';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors/errors.js';
import { formatNumber } from '../../output/numbers.js';
import { plural, trajectories as trajectoryCount } from '../../output/plural.js';
import { type CheckedFile, problemLines } from '../../validate/check-file.js';
import { checkSftFile } from '../../validate/sft.js';
import { checkTrajectoryFile } from '../../validate/trajectory-file.js';
import type { DataKind } from './validate.js';

export async function runValidate(ctx: Context, kind: DataKind, path: string): Promise<void> {
  const { io } = ctx;
  let checked: CheckedFile;
  let summary: Record<string, unknown>;
  let text: string;
  if (kind === 'rl') {
    const file = await checkTrajectoryFile(ctx, path, false);
    checked = file.checked;
    const { groups, trajectories, minReward, maxReward } = file.stats;
    summary = { groups, trajectories, reward_min: minReward ?? null, reward_max: maxReward ?? null };
    text = `${plural(groups, 'group')}, ${trajectoryCount(trajectories)}${minReward === undefined ? '' : `, rewards ${formatNumber(minReward)} to ${formatNumber(maxReward!)}`}`;
  } else {
    const file = await checkSftFile(path, io, lineLimitFrom(ctx.env));
    checked = file.checked;
    const { stats } = file;
    summary = { examples: stats.examples, messages: stats.messages, with_tools: stats.withTools };
    text = `${plural(stats.examples, 'example')}, ${plural(stats.messages, 'message')}, ${stats.withTools} with tools`;
  }
  const valid = checked.problemCount === 0;
  if (ctx.json) {
    io.json({
      valid,
      kind,
      file: checked.name,
      format: checked.format,
      documents: checked.documents,
      problem_count: checked.problemCount,
      problems: checked.problems,
      summary,
    });
  } else if (valid) {
    io.out(`${checked.name}: valid ${kind.toUpperCase()} data: ${text}`);
  } else {
    for (const line of problemLines(checked)) io.out(line);
  }
  if (!valid) {
    throw new UsageError(
      `${checked.name}: ${checked.problemCount} problem${checked.problemCount === 1 ? '' : 's'} in ${checked.documents} ${kind === 'rl' ? 'trajectory groups' : 'training examples'}`,
    );
  }
}
