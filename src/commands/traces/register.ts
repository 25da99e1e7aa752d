import type { Context } from '../../context.js';
import { examples } from '../examples.js';
import type { Parent } from '../types.js';
import { verbs } from '../verbs.js';
import { registerExec } from './exec.js';
import { registerGenerate } from './generate.js';
import { registerSend } from './send.js';
import { registerSpan } from './span.js';

export function registerTraces(program: Parent, ctx: Context): void {
  const traces = examples(
    program
      .command('traces')
      .description('send OpenTelemetry spans to the trace-ingest endpoint (OTLP protobuf)'),
    [
      'aip traces send spans.jsonl',
      'aip traces exec --name build -- make',
      'aip traces span --name deploy --start "$start"',
      'aip traces exec --agent triage --conversation "$RUN_ID" -- ./agent.sh',
    ],
  );
  verbs(traces, () => {
    registerSend(traces, ctx);
    registerGenerate(traces, ctx);
    registerExec(traces, ctx);
    registerSpan(traces, ctx);
  });
}
