import type { Context } from '../../context.js';
import { examples } from '../examples.js';
import type { Parent } from '../types.js';
import { verbs } from '../verbs.js';
import { registerExec } from './exec.js';
import { registerFlush } from './flush.js';
import { registerGenerate } from './generate.js';
import { registerList } from './list.js';
import { registerSend } from './send.js';
import { registerServe } from './serve.js';
import { registerShow } from './show.js';
import { registerSpan } from './span.js';
import { registerTail } from './tail.js';

export function registerTraces(program: Parent, ctx: Context): void {
  const traces = examples(
    program
      .command('traces')
      .description(
        'send OpenTelemetry spans to the trace-ingest endpoint (OTLP protobuf), run a local OTLP gateway to it, and read back the traces it kept',
      ),
    [
      'aip traces send spans.jsonl',
      'aip traces serve --tee',
      'aip traces list --since 1h',
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
    registerServe(traces, ctx);
    registerFlush(traces, ctx);
    registerList(traces, ctx);
    registerShow(traces, ctx);
    registerTail(traces, ctx);
  });
}
