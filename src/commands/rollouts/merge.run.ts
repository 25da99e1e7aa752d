// `aip rollouts merge`: the shard files read and checked against each other and against the tasks file
// (src/rollouts/merge.ts), then the merged file written whole, atomically: a merge that fails, or is
// killed, leaves no file or the one that was there.

import { existsSync, readFileSync } from 'node:fs';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors/errors.js';
import { writeFileAtomic } from '../../fs/atomic-write.js';
import { describeFsError, isFsError, writeError } from '../../fs/write-error.js';
import { mergeShards } from '../../rollouts/merge.js';
import { readTasks } from '../../rollouts/tasks.js';
import type { MergeOptions } from './merge.js';

function readShard(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    if (isFsError(error))
      throw new UsageError(`cannot read ${path}: ${describeFsError(error)}; nothing was written`);
    throw error;
  }
}

export async function runMerge(ctx: Context, files: string[], options: MergeOptions): Promise<void> {
  const { io } = ctx;
  if (existsSync(options.output) && !options.force)
    throw new UsageError(`${options.output} exists: --force replaces it`);
  const tasks = await readTasks(ctx, options.tasks);
  const shards = files.map((path) => ({ path, text: readShard(path) }));
  const merged = mergeShards(
    shards,
    tasks.map((t) => t.id),
    options.tasks,
  );
  try {
    writeFileAtomic(options.output, merged.text, { followSymlinks: true });
  } catch (error) {
    throw writeError(options.output, error, { outcome: 'nothing was written' });
  }
  if (ctx.json)
    io.json({
      output: options.output,
      files: files.length,
      groups: merged.groups,
      tasks: tasks.length,
      seed: merged.seed,
      model: merged.model,
    });
  io.info(
    `Merged ${merged.groups} group${merged.groups === 1 ? '' : 's'} from ${files.length} file${files.length === 1 ? '' : 's'} into ${options.output} (seed ${merged.seed}, in the order of ${options.tasks})`,
  );
}
