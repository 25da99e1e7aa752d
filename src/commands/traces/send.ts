// `aip traces send`: its argument, flags, help and examples; the code that runs is send.run.ts.

import { Argument, Option } from '@commander-js/extra-typings';
import type { Context } from '../../context.js';
import { examples } from '../examples.js';
import type { OptionsOf, Parent } from '../types.js';
import { valueKind } from '../value-kinds.js';
import { sizeParser, wholeNumber } from './flags.js';

/** "4MB", "512KB", "1048576". */
const parseBytes = sizeParser(64 * 1024, 64 * 1024 ** 2, 'from 64KB to 64MB, e.g. 4MB');

function define(traces: Parent) {
  const send = traces
    .command('send')
    .description(
      'send the spans of an OTLP/JSON (one document or JSON Lines) or OTLP protobuf file, gzipped or not; all of it is checked before anything is sent, unless --stream',
    )
    .addArgument(valueKind('file', new Argument('<file>', 'the file, or - for stdin')))
    .addOption(
      new Option('--format <format>', 'the input format (default: from its first bytes)').choices([
        'json',
        'protobuf',
      ]),
    )
    .option(
      '--batch-spans <n>',
      'most spans per request (default 512)',
      wholeNumber('--batch-spans', 1, 100_000),
    )
    .option('--batch-bytes <size>', 'most protobuf bytes per request, before gzip (default 4MB)', parseBytes)
    .option(
      '--concurrency <n>',
      'requests in flight at once (default 4)',
      wholeNumber('--concurrency', 1, 64),
    )
    .option('--dry-run', 'check the input and count the batches; send nothing')
    .option(
      '--stream',
      'send a large JSON Lines input as it is read, not once all of it is checked: a problem found later stops the send, and the spans sent before it stay sent',
    )
    .option(
      '--workers <n>',
      'threads that read a large JSON Lines input (default: one per core, at most 4; 0: none)',
      wholeNumber('--workers', 0, 16),
    );
  return examples(send, [
    'aip traces send spans.json',
    'aip traces send otel-export.jsonl.gz --project my-team/agents',
    'otelcol-export | aip traces send -',
    'aip traces send spans.pb --json | jq .rejected',
    'aip traces send agent-runs.jsonl --stream',
  ]);
}

export type SendOptions = OptionsOf<typeof define>;

export function registerSend(traces: Parent, ctx: Context): void {
  define(traces).action(async (file, options) => {
    const { runSend } = await import('./send.run.js');
    await runSend(ctx, file, options);
  });
}
