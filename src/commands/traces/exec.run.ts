// `aip traces exec -- <command…>`: runs the command inside a span, as a CI step would want: the
// command keeps the terminal (stdin, stdout and stderr are its own), gets TRACEPARENT set to its span
// so that what it traces nests under it, and its exit status becomes the span's status and aip's.
// The span is sent before aip exits; a span that cannot be sent is a warning, never a changed status.
// For the Agents view it is a GenAI span: the command is a tool the agent ran (execute_tool), or with
// --agent the agent itself (invoke_agent). The command is a program and its arguments, run without a
// shell; on Windows through cross-spawn, so that npm and npx (.cmd shims) run too (lib/spawn-plan.ts).

import { constants } from 'node:os';
import { basename } from 'node:path';
import type { Context } from '../../context.js';
import { ChildExitError, CliError } from '../../errors/errors.js';
import { spawnProgram } from '../../lib/spawn-plan.js';
import { incomingContext, sendSpans, spanResource } from '../../traces/make/emit.js';
import {
  buildSpan,
  formatTraceparent,
  intAttr,
  newSpanId,
  nowNanos,
  parseAttribute,
  SpanKind,
  StatusCode,
  stringAttr,
  stringsAttr,
  traceFor,
} from '../../traces/make/span.js';
import { traceClient } from '../../traces/send/client.js';
import type { ExecOptions } from './exec.js';
import { defaultKind, genAiAttributes } from './gen-ai-attributes.js';

interface Outcome {
  /** aip's own exit status: the command's, or 128 + the signal that ended it. */
  code: number;
  status: { code: number; message?: string };
  attributes: ReturnType<typeof intAttr>[];
}

const FORWARDED = ['SIGTERM', 'SIGHUP', 'SIGINT'] as const;

function run(ctx: Context, command: string[], traceparent: string): Promise<Outcome> {
  const { io } = ctx;
  // The real terminal when aip has one; tests give aip streams of their own, which get the output.
  const inherit = (io.stdin as unknown) === process.stdin;
  const child = spawnProgram(command[0]!, command.slice(1), {
    stdio: inherit ? 'inherit' : ['ignore', 'pipe', 'pipe'],
    env: { ...ctx.env, TRACEPARENT: traceparent },
  });
  child.stdout?.on('data', (d: Buffer) => io.write(d.toString()));
  child.stderr?.on('data', (d: Buffer) => io.errWrite(d.toString()));
  // Signals meant for the step reach the command; aip stays to record how it ended. Ctrl-C on a
  // terminal reaches both already (they share the foreground process group), so SIGINT is passed on
  // only when there is no terminal: sent twice, tools such as terraform take it as "force".
  const onTerminal = io.isStdinTTY || io.isStdoutTTY || io.isStderrTTY;
  const forward = (signal: NodeJS.Signals) => () => {
    if (!(signal === 'SIGINT' && onTerminal)) child.kill(signal);
  };
  const handlers = FORWARDED.map((signal) => [signal, forward(signal)] as const);
  for (const [signal, handler] of handlers) ctx.deps.signals.on(signal, handler);
  return new Promise((resolve) => {
    // The first word wins: on Windows cross-spawn reports a command cmd.exe did not find as an error,
    // and the close that follows it must not report it again as exit status 1.
    let settled = false;
    const finish = (outcome: Outcome) => {
      if (settled) return;
      settled = true;
      for (const [signal, handler] of handlers) ctx.deps.signals.off(signal, handler);
      resolve(outcome);
    };
    child.once('error', (error: NodeJS.ErrnoException) => {
      // Not started: as a shell says it, 127 for a command that is not there, 126 for one not runnable.
      const code = error.code === 'ENOENT' ? 127 : 126;
      const why = error.code === 'ENOENT' ? 'command not found' : `cannot run it (${error.code})`;
      io.err(`aip traces exec: ${command[0]}: ${why}`);
      finish({ code, status: { code: StatusCode.error, message: why }, attributes: [] });
    });
    child.once('close', (exitCode, signal) => {
      const attributes = [intAttr('process.pid', child.pid ?? 0)];
      if (signal) {
        const number = constants.signals[signal] ?? 0;
        finish({
          code: 128 + number,
          status: { code: StatusCode.error, message: `killed by ${signal}` },
          attributes,
        });
        return;
      }
      const code = exitCode ?? 1;
      attributes.push(intAttr('process.exit.code', code));
      finish({
        code,
        status:
          code === 0
            ? { code: StatusCode.unset }
            : { code: StatusCode.error, message: `exit status ${code}` },
        attributes,
      });
    });
  });
}

export async function runExec(ctx: Context, command: string[], flags: ExecOptions): Promise<void> {
  // Everything that could stop the span from being sent is checked before the command runs.
  const resource = spanResource(ctx, flags.service);
  const client = traceClient(ctx);
  const user = (flags.attr ?? []).map((a) => parseAttribute(a));
  const tool = basename(command[0]!);
  const genAi = genAiAttributes(flags, user, { operation: 'execute_tool', tool });
  const context = traceFor(incomingContext(ctx, flags.parent));
  const spanId = newSpanId();
  const start = nowNanos();
  const outcome = await run(ctx, command, formatTraceparent(context.traceId, spanId, context.flags));
  const end = nowNanos();
  const span = buildSpan({
    name: flags.name ?? genAi.name ?? tool,
    kind: SpanKind[flags.kind ?? defaultKind(genAi.operation)],
    context,
    spanId,
    start,
    end,
    attributes: [
      ...genAi.attributes,
      stringAttr('process.executable.name', tool),
      stringsAttr('process.command_args', command),
      ...outcome.attributes,
      ...user,
    ],
    status: outcome.status,
  });
  try {
    const result = await sendSpans(client, resource, [span]);
    if (result.rejected > 0)
      ctx.io.warn(`the span was rejected: ${result.errorMessage || 'no reason given'}`);
  } catch (error) {
    ctx.io.warn(`the span could not be sent: ${error instanceof CliError ? error.message : String(error)}`);
  }
  if (outcome.code !== 0) throw new ChildExitError(outcome.code);
}
