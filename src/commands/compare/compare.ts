// `aip compare`: its arguments, flags, help and examples; the code that runs is compare.run.ts.

import { Argument, Option } from '@commander-js/extra-typings';
import type { Context } from '../../context.js';
import { examples } from '../examples.js';
import type { OptionsOf, Parent } from '../types.js';
import { valueKind } from '../value-kinds.js';

const SOURCE_HELP =
  'a train rl run directory, an eval result file (aip eval --json), or model:NAME (its checkpoints; a remembered model name works too)';

function define(program: Parent) {
  const compare = program
    .command('compare')
    .description('overlay runs, evals and models in one chart and one table: a metric by step')
    .addArgument(valueKind('file', new Argument('<source...>', SOURCE_HELP)))
    .option(
      '--metric <name>',
      "what to compare (default reward): a run's mean reward, an eval's mean (or pass_rate, std), a checkpoint metric",
    )
    .option('--plot', 'draw the chart even when stdout is not a terminal (drawn on a terminal by default)')
    .option('--no-plot', 'no chart, the table only')
    .addOption(
      valueKind(
        'file',
        new Option(
          '--report <file>',
          'also write a report: FILE.html (a self-contained page) or FILE.md (for a pull request or step summary)',
        ),
      ),
    )
    .option('--title <text>', "the report's title");
  return examples(compare, [
    'aip compare runs/first runs/second',
    'aip compare runs/first eval.json model:agent-001',
    'aip compare model:agent-001 model:agent-002 --metric loss',
    'aip compare runs/first eval.json --report report.html',
    'aip compare runs/first --json | jq ".series[].points"',
  ]);
}

export type CompareOptions = OptionsOf<typeof define>;

export function registerCompare(program: Parent, ctx: Context): void {
  define(program).action(async (sources, options) => {
    const { runCompare } = await import('./compare.run.js');
    await runCompare(ctx, sources, options);
  });
}
