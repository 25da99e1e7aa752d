// `aip traces exec`: its argument, flags, help and examples; the code that runs is exec.run.ts.

import type { Context } from '../../context.js';
import { examples } from '../examples.js';
import type { OptionsOf, Parent } from '../types.js';
import { spanAttributes } from './flags.js';

function define(traces: Parent) {
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
  );
  return examples(exec, [
    'aip traces exec --name "unit tests" -- npm test',
    'aip traces exec --attr ci.job=build --attr ci.attempt=2 -- make all',
    'aip traces exec --tool web_search -- ./search.sh "$query"                # execute_tool web_search',
    'aip traces exec --agent triage --conversation "$RUN_ID" -- ./triage.sh   # invoke_agent triage',
  ]);
}

export type ExecOptions = OptionsOf<typeof define>;

export function registerExec(traces: Parent, ctx: Context): void {
  define(traces).action(async (command, options) => {
    const { runExec } = await import('./exec.run.js');
    await runExec(ctx, command, options);
  });
}
