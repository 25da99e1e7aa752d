// `aip jobs list`: its flags, help and examples; the code that runs is list.run.ts.

import { InvalidArgumentError, Option } from '@commander-js/extra-typings';
import type { Context } from '../../context.js';
import { examples } from '../examples.js';
import type { OptionsOf, Parent } from '../types.js';
import { valueKind } from '../value-kinds.js';

/** The states a job can be listed in (src/jobs/shape.ts); `unknown` is shown, not filtered on. */
const STATES = ['queued', 'running', 'succeeded', 'failed', 'gone'] as const;

function parseCount(value: string): number {
  if (!/^\d+$/.test(value.trim()) || Number(value) < 1)
    throw new InvalidArgumentError('expected a whole number, at least 1');
  return Number(value);
}

function define(jobs: Parent) {
  const list = jobs
    .command('list')
    .description(
      'the jobs created from this machine (the API cannot list them), newest first, with their state',
    )
    .addOption(
      valueKind(
        'model',
        new Option(
          '--model <model>',
          'only the jobs of this model: its id, or its name (team/project/name, project/name, name)',
        ),
      ),
    )
    .addOption(new Option('--state <state>', 'only the jobs in this state').choices(STATES))
    .option('--limit <n>', 'at most this many jobs (the newest)', parseCount)
    .option(
      '--all-profiles',
      'every job this machine created, whichever profile and base URL: each asked through its own profile, with a profile column',
    );
  return examples(list, [
    'aip jobs list',
    'aip jobs list --state failed',
    'aip jobs list --model agent-001 --limit 5 --json',
    'aip jobs list --state gone -q | xargs -r aip jobs forget',
    'aip jobs list --all-profiles --json',
  ]);
}

export type ListOptions = OptionsOf<typeof define>;

export function registerList(jobs: Parent, ctx: Context): void {
  define(jobs).action(async (options) => {
    const { runList } = await import('./list.run.js');
    await runList(ctx, options);
  });
}
