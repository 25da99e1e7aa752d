// `aip jobs validate rl` and `aip jobs validate sft`: their argument, help and examples; the code
// that runs is validate.run.ts.

import { Argument } from '@commander-js/extra-typings';
import type { Context } from '../../context.js';
import { examples } from '../examples.js';
import type { Parent } from '../types.js';
import { valueKind } from '../value-kinds.js';

const KINDS = ['rl', 'sft'] as const;

/** The kinds of training data there is a check for. */
export type DataKind = (typeof KINDS)[number];

function define(validate: Parent, kind: DataKind) {
  const command = validate
    .command(kind)
    .description(
      kind === 'rl'
        ? 'trajectory groups (JSON Lines or a JSON array)'
        : 'SFT examples (JSON Lines of {"messages", "tools"})',
    )
    .addArgument(valueKind('file', new Argument('<file>', 'the file, or - for stdin')));
  return examples(command, [
    `aip jobs validate ${kind} ${kind === 'rl' ? 'groups.jsonl' : 'train.jsonl'}`,
    `cat data.jsonl | aip jobs validate ${kind} -`,
  ]);
}

export function registerValidate(jobs: Parent, ctx: Context): void {
  const validate = examples(
    jobs
      .command('validate')
      .description('check training data offline: every problem as file:line: path: problem'),
    ['aip jobs validate rl groups.jsonl', 'aip jobs validate sft train.jsonl --json'],
  );
  for (const kind of KINDS) {
    define(validate, kind).action(async (file) => {
      const { runValidate } = await import('./validate.run.js');
      await runValidate(ctx, kind, file);
    });
  }
}
