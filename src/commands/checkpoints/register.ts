import { type Command, InvalidArgumentError } from 'commander';
import type { Context } from '../../context.js';
import { examples } from '../examples.js';
import { parseLimit } from '../parsers.js';

function parseCount(value: string): number {
  if (!/^\d+$/.test(value)) throw new InvalidArgumentError('expected a whole number, 0 or more');
  return Number(value);
}

function parseOrder(value: string): 'asc' | 'desc' {
  if (value !== 'asc' && value !== 'desc') throw new InvalidArgumentError('expected asc or desc');
  return value;
}

const MODEL_ARG = 'model id, or a name created from this machine (team/project/name or name)';

export function registerCheckpoints(program: Command, ctx: Context): void {
  const checkpoints = program
    .command('checkpoints')
    .description("list, plot, delete and prune a model's checkpoints");
  examples(checkpoints, [
    'aip checkpoints list agent-001 --all',
    'aip checkpoints prune agent-001 --keep-last 3 --dry-run',
  ]);

  const list = checkpoints
    .command('list')
    .description('list checkpoints (STEP, ID, metrics), a page at a time or --all')
    .argument('<model>', MODEL_ARG)
    .option('--limit <n>', 'checkpoints per page, 1-100 (default 20)', parseLimit)
    .option('--after <id>', 'start after this checkpoint id (the cursor printed at the end of a page)')
    .option('--order <asc|desc>', 'by step: asc (default) or desc', parseOrder)
    .option('--all', 'every page (with --json: one array)')
    .option('--plot <metric>', 'draw a metric over the steps of all checkpoints')
    .action(async (model: string, opts) => {
      const { runList } = await import('./list.js');
      await runList(ctx, model, opts);
    });
  examples(list, [
    'aip checkpoints list agent-001',
    'aip checkpoints list agent-001 --order desc --limit 1 -q     # the latest checkpoint id',
    'aip checkpoints list agent-001 --all --json | jq "map(.step)"',
    'aip checkpoints list agent-001 --plot reward',
  ]);

  const del = checkpoints
    .command('delete')
    .description('delete the checkpoints of some steps (exit 3 when none of them existed)')
    .argument('<model>', MODEL_ARG)
    .requiredOption('--steps <list>', 'steps to delete: 3,5,7 or ranges such as 10-20')
    .action(async (model: string, opts: { steps: string }) => {
      const { runDelete } = await import('./delete.js');
      await runDelete(ctx, model, opts);
    });
  examples(del, [
    'aip checkpoints delete agent-001 --steps 3,5,7',
    'aip checkpoints delete agent-001 --steps 1-40 --yes',
  ]);

  const prune = checkpoints
    .command('prune')
    .description('keep the last N checkpoints (and the best by a metric), delete the rest')
    .argument('<model>', MODEL_ARG)
    .option('--keep-last <n>', 'keep the N highest steps', parseCount)
    .option(
      '--keep-best <metric[:min]>',
      'also keep the best checkpoint by a metric (highest; :min for lowest)',
    )
    .option('--dry-run', 'show the plan and delete nothing')
    .action(async (model: string, opts) => {
      const { runPrune } = await import('./prune.js');
      await runPrune(ctx, model, opts);
    });
  examples(prune, [
    'aip checkpoints prune agent-001 --keep-last 3 --dry-run',
    'aip checkpoints prune agent-001 --keep-last 1 --keep-best reward --yes',
    'aip checkpoints prune agent-001 --keep-last 2 --keep-best loss:min',
  ]);
}
