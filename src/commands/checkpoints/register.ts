import type { Context } from '../../context.js';
import { examples } from '../examples.js';
import type { Parent } from '../types.js';
import { verbs } from '../verbs.js';
import { registerDelete } from './delete.js';
import { registerList } from './list.js';
import { registerPrune } from './prune.js';

export function registerCheckpoints(program: Parent, ctx: Context): void {
  const checkpoints = examples(
    program.command('checkpoints').description("list, plot, delete and prune a model's checkpoints"),
    ['aip checkpoints list agent-001 --all', 'aip checkpoints prune agent-001 --keep-last 3 --dry-run'],
  );
  verbs(checkpoints, () => {
    registerList(checkpoints, ctx);
    registerDelete(checkpoints, ctx);
    registerPrune(checkpoints, ctx);
  });
}
