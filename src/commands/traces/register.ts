import { type Command, InvalidArgumentError, Option } from 'commander';
import type { Context } from '../../context.js';
import { examples } from '../examples.js';

function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

function wholeNumber(flag: string, min: number, max: number): (value: string) => number {
  return (value) => {
    if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > max)
      throw new InvalidArgumentError(`${flag}: expected a whole number from ${min} to ${max}`);
    return Number(value);
  };
}

/** "4MB", "512KB", "1048576". */
function parseBytes(value: string): number {
  const m = /^(\d+)\s*(B|KB|KiB|MB|MiB)?$/i.exec(value.trim());
  const unit = { b: 1, kb: 1024, kib: 1024, mb: 1024 ** 2, mib: 1024 ** 2 }[(m?.[2] ?? 'b').toLowerCase()];
  const bytes = m ? Number(m[1]) * (unit ?? 1) : Number.NaN;
  if (!(bytes >= 64 * 1024 && bytes <= 64 * 1024 ** 2))
    throw new InvalidArgumentError('expected a size from 64KB to 64MB, e.g. 4MB');
  return bytes;
}

const KINDS = ['internal', 'server', 'client', 'producer', 'consumer'];
/** GenAiOperation of traces/span.ts, spelled out: help must not load the traces modules. */
const OPERATIONS = ['chat', 'invoke_agent', 'execute_tool'];

export function registerTraces(program: Command, ctx: Context): void {
  const traces = program
    .command('traces')
    .description('send OpenTelemetry spans to the trace-ingest endpoint (OTLP protobuf)');
  examples(traces, [
    'aip traces send spans.jsonl',
    'aip traces exec --name build -- make',
    'aip traces span --name deploy --start "$start"',
    'aip traces exec --agent triage --conversation "$RUN_ID" -- ./agent.sh',
  ]);

  const send = traces
    .command('send')
    .description(
      'send the spans of an OTLP/JSON (one document or JSON Lines) or OTLP protobuf file, gzipped or not; all of it is checked before anything is sent',
    )
    .argument('<file>', 'the file, or - for stdin')
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
      '--workers <n>',
      'threads that read a large JSON Lines input (default: one per core, at most 4; 0: none)',
      wholeNumber('--workers', 0, 16),
    )
    .action(async (file: string, opts) => {
      const { runSend } = await import('./send.js');
      await runSend(ctx, file, opts);
    });
  examples(send, [
    'aip traces send spans.json',
    'aip traces send otel-export.jsonl.gz --project my-team/agents',
    'otelcol-export | aip traces send -',
    'aip traces send spans.pb --json | jq .rejected',
  ]);

  const generate = traces
    .command('generate')
    .description(
      'write synthetic spans (traces of several services, every kind of attribute, events, links, statuses), as telemetrygen does: for trying ingest out or loading it',
    )
    .requiredOption('--spans <n>', 'how many spans', wholeNumber('--spans', 1, 100_000_000))
    .addOption(
      new Option('--format <format>', 'output format (default jsonl)').choices(['jsonl', 'json', 'protobuf']),
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
    .option('-o, --output <file>', 'write to a file instead of stdout')
    .action(async (opts) => {
      const { runGenerate } = await import('./generate.js');
      await runGenerate(ctx, opts);
    });
  examples(generate, [
    'aip traces generate --spans 1000 | aip traces send -',
    'aip traces generate --spans 200000 -o spans.jsonl',
    'aip traces generate --spans 50 --format protobuf -o spans.pb',
  ]);

  const spanAttributes = (c: Command) =>
    c
      .option(
        '--attr <key=value>',
        'a span attribute; numbers and true/false are typed (repeatable)',
        collect,
      )
      .addOption(
        new Option('--kind <kind>', 'span kind (default internal; client for --operation chat)').choices(
          KINDS,
        ),
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

  const exec = spanAttributes(
    traces
      .command('exec')
      .description(
        "run a command inside a span: its exit status is the span's status and aip's own; TRACEPARENT is read, and set for the command to its span, an execute_tool span of the command (or with --agent, invoke_agent)",
      )
      .argument('<command...>', 'the command and its arguments, after --')
      .option(
        '--name <name>',
        'span name (default: the operation and the tool or agent, e.g. execute_tool make)',
      ),
  ).action(async (command: string[], opts) => {
    const { runExec } = await import('./exec.js');
    await runExec(ctx, command, opts);
  });
  examples(exec, [
    'aip traces exec --name "unit tests" -- npm test',
    'aip traces exec --attr ci.job=build --attr ci.attempt=2 -- make all',
    'aip traces exec --tool web_search -- ./search.sh "$query"                # execute_tool web_search',
    'aip traces exec --agent triage --conversation "$RUN_ID" -- ./triage.sh   # invoke_agent triage',
  ]);

  const span = spanAttributes(
    traces
      .command('span')
      .description(
        'send one span made from the command line, and print its traceparent; a plain span unless --operation, --agent, --tool or --conversation make it a GenAI one',
      )
      .option('--name <name>', 'span name (required for a plain span; default: e.g. invoke_agent NAME)')
      .option('--start <time>', 'start: now, Unix seconds, or an RFC 3339 time (default now)')
      .option('--end <time>', 'end (default now)')
      .addOption(new Option('--status <status>', 'span status').choices(['unset', 'ok', 'error']))
      .option('--status-message <text>', 'a description of the status (with --status error)'),
  ).action(async (opts) => {
    const { runSpan } = await import('./span.js');
    await runSpan(ctx, opts);
  });
  examples(span, [
    'start=$(date +%s.%N); ./deploy.sh; aip traces span --name deploy --start "$start"',
    'export TRACEPARENT=$(aip traces span --name pipeline)',
    'aip traces span --name step --status error --status-message "tests failed"',
    'export TRACEPARENT=$(aip traces span --agent planner --conversation "$RUN_ID" --start "$start")',
    'aip traces span --tool get_weather --start "$t0" --attr gen_ai.tool.call.id=call_1',
  ]);
}
