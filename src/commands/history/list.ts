// `aip history` (`aip history list`): its flags, help and examples; the code that runs is list.run.ts.

import { Option } from '@commander-js/extra-typings';
import type { Context } from '../../context.js';
import { examples } from '../examples.js';
import type { OptionsOf, Parent } from '../types.js';
import { valueKind } from '../value-kinds.js';
import { DEFAULT_LIMIT, parseCount, parseTime } from './arguments.js';

function define(history: Parent) {
  const list = history
    .command('list', { isDefault: true })
    .description(
      'the commands that talked to the platform, newest first: exit, duration, tokens, ids created (what bare `aip history` runs)',
    )
    .option('--since <time>', 'only those started since: an age (7d, 24h, 30m) or an ISO date', parseTime)
    .option('--until <time>', 'only those started before: an age or an ISO date', parseTime)
    .option('--command <command>', 'only commands whose path starts so ("jobs create", "rollouts")')
    .addOption(valueKind('model', new Option('--model <model>', 'only those that used or noted this model')))
    .addOption(
      valueKind('job', new Option('--job <job>', 'only those that created, noted or worked on this job')),
    )
    .option(
      '--search <text>',
      'only those with this text in the command line, error, a model, job or id created',
    )
    .option('--limit <n>', `at most this many, the newest (default ${DEFAULT_LIMIT})`, parseCount);
  return examples(list, [
    'aip history',
    'aip history list --since 24h --command rollouts',
    'aip history list --job 3f0c --json',
    'aip history list --search agent-001 --jsonl',
  ]);
}

export type ListOptions = OptionsOf<typeof define>;

export function registerList(history: Parent, ctx: Context): void {
  define(history).action(async (options) => {
    const { runList } = await import('./list.run.js');
    await runList(ctx, options);
  });
}
