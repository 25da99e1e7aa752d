// `aip traces serve`: its flags, help and examples; the code that runs is serve.run.ts.

import { Option } from '@commander-js/extra-typings';
import type { Context } from '../../context.js';
import { examples } from '../examples.js';
import { collect } from '../parsers.js';
import type { OptionsOf, Parent } from '../types.js';
import { sizeParser, wholeNumber } from './flags.js';

/**
 * The presets of --redact-preset (traces/redact/presets.ts, which may not load at start-up: the
 * redaction test checks the two lists are the same).
 */
export const REDACT_PRESETS = ['prompts', 'completions', 'content', 'tool-io'] as const;

/** "512MB", "2GB", "1048576": the spool's bound. */
export const parseSpoolSize = sizeParser(1024 ** 2, 1024 ** 4, 'from 1MB to 1024GB, e.g. 512MB');

function define(traces: Parent) {
  const serve = traces
    .command('serve')
    .description(
      'a local OTLP/HTTP gateway: take spans from OpenTelemetry exporters on 127.0.0.1 (POST /v1/traces, protobuf or JSON) and forward them to trace ingest with the key and the project added; what the platform cannot take yet is kept in a spool on disk and sent when it is back. Ctrl-C stops it, once what is in flight is forwarded or spooled',
    )
    .option(
      '--port <port>',
      "the port on 127.0.0.1 (default 4318, the exporters' own; 0: any free port)",
      wholeNumber('--port', 0, 65535),
    )
    .option(
      '--concurrency <n>',
      'requests to trace ingest in flight at once (default 4)',
      wholeNumber('--concurrency', 1, 64),
    )
    .option(
      '--spool-max <size>',
      'the most the spool may hold; past it, exporters are told to retry later (default 512MB)',
      parseSpoolSize,
    )
    .option(
      '--tee',
      'keep what passes (routed and redacted) in a local store too, for aip traces list, show and tail',
    )
    // Checked and compiled before the gateway starts (traces/redact/flags.ts): a bad one is exit 2.
    .option(
      '--redact <attr=regex>',
      'replace each match of regex in the string values of attribute attr (* in attr: any characters) with [REDACTED], before anything leaves the machine (repeatable)',
      collect,
    )
    .option(
      '--drop <attr>',
      'remove attribute attr (* in attr: any characters) from resources, scopes, spans, events and links (repeatable)',
      collect,
    )
    .addOption(
      new Option(
        '--redact-preset <name>',
        'replace with [REDACTED] the whole value of the attributes that carry prompts, completions or tool calls (docs/redaction.md; repeatable)',
      )
        .choices(REDACT_PRESETS)
        .argParser(collect),
    );
  return examples(serve, [
    'aip traces serve',
    'OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:4318 python agent.py',
    'aip traces serve --port 0 --json > gateway.json',
    'aip traces serve --redact-preset content --drop enduser.id --tee',
  ]);
}

export type ServeOptions = OptionsOf<typeof define>;

export function registerServe(traces: Parent, ctx: Context): void {
  define(traces).action(async (options) => {
    const { runServe } = await import('./serve.run.js');
    await runServe(ctx, options);
  });
}
