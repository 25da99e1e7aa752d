// What several of traces' definitions share: a whole-number parser, and the span flags of exec and
// span.

import { type Command, InvalidArgumentError, Option, type OptionValues } from '@commander-js/extra-typings';
import { collect } from '../parsers.js';
import type { OptionsOf } from '../types.js';

export function wholeNumber(flag: string, min: number, max: number): (value: string) => number {
  return (value) => {
    if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > max)
      throw new InvalidArgumentError(`${flag}: expected a whole number from ${min} to ${max}`);
    return Number(value);
  };
}

const SIZE_UNITS = new Map([
  ['b', 1],
  ['kb', 1024],
  ['kib', 1024],
  ['mb', 1024 ** 2],
  ['mib', 1024 ** 2],
  ['gb', 1024 ** 3],
  ['gib', 1024 ** 3],
]);

/** A size such as "4MB", "512KB" or "1048576", from `min` to `max` bytes; `range` says which in the error. */
export function sizeParser(min: number, max: number, range: string): (value: string) => number {
  return (value) => {
    const m = /^(\d+)\s*(B|KB|KiB|MB|MiB|GB|GiB)?$/i.exec(value.trim());
    const bytes = m ? Number(m[1]) * (SIZE_UNITS.get((m[2] ?? 'b').toLowerCase()) ?? 1) : Number.NaN;
    if (!(bytes >= min && bytes <= max)) throw new InvalidArgumentError(`expected a size ${range}`);
    return bytes;
  };
}

/** How many traces `traces list` shows when not told (here, so that list.run.ts need not import list.ts). */
export const DEFAULT_TRACE_LIMIT = 50;

/** SpanKind of traces/make/span.ts, spelled out: help must not load the traces modules. */
const KINDS = ['internal', 'server', 'client', 'producer', 'consumer'] as const;
/** GenAiOperation of traces/make/span.ts, likewise. */
const OPERATIONS = ['chat', 'invoke_agent', 'execute_tool'] as const;

/** The flags of a span that exec and span both make, after their own. */
export function spanAttributes<
  Args extends unknown[],
  Opts extends OptionValues,
  Globals extends OptionValues,
>(command: Command<Args, Opts, Globals>) {
  return command
    .option('--attr <key=value>', 'a span attribute; numbers and true/false are typed (repeatable)', collect)
    .addOption(
      new Option('--kind <kind>', 'span kind (default internal; client for --operation chat)').choices(KINDS),
    )
    .option('--service <name>', 'service.name of the resource (default $OTEL_SERVICE_NAME, or aip)')
    .option('--parent <traceparent>', 'the parent span, as a W3C traceparent (default $TRACEPARENT)')
    .addOption(
      new Option(
        '--operation <operation>',
        'gen_ai.operation.name, for the Agents view (default: what --agent, --tool or --conversation imply)',
      ).choices(OPERATIONS),
    )
    .option('--agent <name>', 'gen_ai.agent.name: the span is an invoke_agent span of this agent')
    .option('--tool <name>', 'gen_ai.tool.name: the span is an execute_tool span of this tool')
    .option(
      '--conversation <id>',
      'gen_ai.conversation.id: the conversation this belongs to (for traces span, alone: an invoke_agent span)',
    );
}

type None = Record<never, never>;

/** Those flags' values, as exec and span are given them. */
export type SpanAttributeOptions = OptionsOf<typeof spanAttributes<[], None, None>>;
