// `aip traces generate`: its flags, help and examples; the code that runs is generate.run.ts.

import { Option } from '@commander-js/extra-typings';
import type { Context } from '../../context.js';
import { examples } from '../examples.js';
import type { OptionsOf, Parent } from '../types.js';
import { valueKind } from '../value-kinds.js';
import { wholeNumber } from './flags.js';

function define(traces: Parent) {
  const generate = traces
    .command('generate')
    .description(
      'write synthetic spans (traces of several services, every kind of attribute, events, links, statuses), as telemetrygen does: for trying ingest out or loading it',
    )
    .requiredOption('--spans <n>', 'how many spans', wholeNumber('--spans', 1, 100_000_000))
    .addOption(
      new Option('--format <format>', 'output format (default jsonl)').choices(['jsonl', 'json', 'protobuf']),
    )
    .addOption(
      new Option(
        '--shape <shape>',
        'mixed: every kind of attribute value (default); agent: GenAI agent turns (model and tool calls, token counts, prompt and completion text), about 1 KB a span',
      ).choices(['mixed', 'agent']),
    )
    .option(
      '--per-document <n>',
      'spans per request document (default 500)',
      wholeNumber('--per-document', 1, 100_000),
    )
    .option(
      '--seed <n>',
      'the same seed gives the same spans (default 1)',
      wholeNumber('--seed', 0, 2 ** 32 - 1),
    )
    .option('--routing <team/project>', 'put wandb.entity / wandb.project on every resource')
    .option(
      '--start <time>',
      'when the first trace starts: now, Unix seconds or RFC 3339 (default an hour ago)',
    )
    .addOption(valueKind('file', new Option('-o, --output <file>', 'write to a file instead of stdout')));
  return examples(generate, [
    'aip traces generate --spans 1000 | aip traces send -',
    'aip traces generate --spans 200000 -o spans.jsonl',
    'aip traces generate --spans 50 --format protobuf -o spans.pb',
    'aip traces generate --spans 100000 --shape agent --routing my-team/agents -o agent.jsonl',
  ]);
}

export type GenerateOptions = OptionsOf<typeof define>;

export function registerGenerate(traces: Parent, ctx: Context): void {
  define(traces).action(async (options) => {
    const { runGenerate } = await import('./generate.run.js');
    await runGenerate(ctx, options);
  });
}
