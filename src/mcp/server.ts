// `aip mcp`: a Model Context Protocol server over stdio whose tools are aip's verbs (tools.ts), each
// call run as its command line in this process (runner.ts). stdout carries the protocol and nothing
// else: the tools' output is kept, their stderr goes to this process's stderr (the server's log) and,
// when the client asked for progress, into notifications/progress, one per line. Every text that
// leaves is masked of keys (redact).

import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { CallToolResult, JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { Command } from 'commander';
import { z } from 'zod';
import type { Deps } from '../context.js';
import { VERSION } from '../lib/version.js';
import type { Env } from '../settings/global-options.js';
import { TRAIN_AGENT, trainAgentPrompt } from './prompt.js';
import { resourcesOf } from './resources.js';
import { type BuildProgram, MAX_OUTPUT_CHARS, redact, runVerb, type VerbRun } from './runner.js';
import {
  argvFor,
  confirmationMissing,
  deriveTools,
  inputShape,
  type ToolInput,
  type ToolSpec,
} from './tools.js';

export interface McpOptions {
  root: Command;
  /** What each call runs on: a fresh tree (program.ts's builder), the server's deps and environment. */
  build: BuildProgram;
  deps: Deps;
  env: Env;
  /** The server's own global options (--profile, --base-url…), given to every call before the verb. */
  globalArgs: string[];
  readOnly: boolean;
  /** Reward commands and URLs offered to the agent (tools.ts RUNS_COMMANDS). */
  allowCommands?: boolean;
  /** A call that has said nothing for this long says it still runs (when progress was asked for). */
  heartbeatMs?: number;
  /** Where the server logs (stderr). */
  log: (line: string) => void;
  /** Aborted when the server must stop at once (Ctrl-C, SIGTERM, stdout closed). */
  stop: AbortSignal;
  /** The protocol's streams: the process's stdin, and its stdout written as it is. */
  stdin: NodeJS.ReadableStream & { readableEnded?: boolean };
  stdout: { write(chunk: string): boolean; once(event: string, listener: () => void): unknown };
}

/** The JSON a command printed: one document, or JSON Lines; undefined when it printed something else. */
export function parseOutput(stdout: string): unknown {
  const text = stdout.trim();
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    try {
      return text.split('\n').map((line) => JSON.parse(line) as unknown);
    } catch {
      return undefined;
    }
  }
}

/** MCP's structured content is an object: a list or a value is given as { result }. */
function structured(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : { result: value };
}

/** The error line aip printed (and the lines under it), without "error: ". */
export function errorOf(stderr: string): string | undefined {
  const lines = stderr.split('\n');
  const at = lines.findLastIndex((line) => line.startsWith('error:'));
  if (at < 0) return undefined;
  // Its detail lines are indented by two spaces; a stack trace (--debug) after them is not part of it.
  const rest = lines.slice(at + 1);
  const end = rest.findIndex((line) => !/^ {2}\S/.test(line));
  const details = end < 0 ? rest : rest.slice(0, end);
  return [lines[at]!.replace(/^error:\s*/, ''), ...details.map((d) => d.trim())].join('\n');
}

/** A call's result, as the client gets it. */
export function resultOf(tool: ToolSpec, run: VerbRun): CallToolResult {
  if (run.unusable) {
    const why =
      run.unusable === 'binary'
        ? 'its output is bytes, not text'
        : `its output passed ${MAX_OUTPUT_CHARS / 1024 / 1024} MB, and it was stopped there`;
    const error = `${why}: give it a file to write to (its output or o input) and read that instead`;
    return {
      isError: true,
      content: [{ type: 'text', text: `aip ${tool.path.join(' ')}: ${error}` }],
      structuredContent: { exit_code: run.code, error },
    };
  }
  const output = parseOutput(redact(run.stdout));
  if (run.code === 0) {
    if (output === undefined)
      return { content: [{ type: 'text', text: redact(run.stdout) || '(no output)' }] };
    return {
      content: [{ type: 'text', text: JSON.stringify(output, null, 2) }],
      structuredContent: structured(output),
    };
  }
  const error = redact(errorOf(run.stderr) ?? (run.stderr.trim().split('\n').at(-1) || 'failed'));
  return {
    isError: true,
    content: [{ type: 'text', text: `aip ${tool.path.join(' ')} failed (exit ${run.code}): ${error}` }],
    structuredContent: { exit_code: run.code, error, ...(output === undefined ? {} : { output }) },
  };
}

/**
 * How often a silent call with a progress token says it still runs: a client may time a request out
 * when nothing comes (the SDK's Client after 60 s, unless told to reset on progress), and a wait for
 * a queued job can be silent for much longer.
 */
export const DEFAULT_HEARTBEAT_SECONDS = 15;

/** The calls under way, interrupted when the server stops, and waited for before it returns. */
interface Calls {
  controllers: Set<AbortController>;
  runs: Set<Promise<unknown>>;
}

const INSTRUCTIONS =
  'Each tool runs one aip command with --json and returns its JSON. Failures carry aip’s exit code ' +
  '(aip://formats/exit-codes). Destructive tools need confirm: true after the user agreed. Long ' +
  'tools (jobs_wait, train_rl, rollouts, eval) report progress and can be cancelled. Resources: ' +
  "each command's help (aip://help/…), the docs, the file formats (aip://formats/…), the history. " +
  'The prompt train_agent walks through a training run.';

/** One tool: its call checked (confirm), run as its command line, its stderr lines as progress. */
function registerTool(server: McpServer, tool: ToolSpec, options: McpOptions, calls: Calls): void {
  const { log } = options;
  server.registerTool(
    tool.name,
    {
      title: tool.title,
      description: tool.description,
      inputSchema: inputShape(tool),
      annotations: {
        title: tool.title,
        readOnlyHint: tool.access === 'read',
        destructiveHint: tool.access === 'destructive',
        openWorldHint: true,
      },
    },
    async (input: ToolInput, extra) => {
      const refused = confirmationMissing(tool, input);
      if (refused) return { isError: true, content: [{ type: 'text', text: refused }] };
      const argv = [...options.globalArgs, ...argvFor(tool, input)];
      const token = extra._meta?.progressToken;
      let progress = 0;
      // Calls run side by side: each line of the log says which request it belongs to.
      const who = `[${String(extra.requestId)}] ${tool.name}`;
      const started = performance.now();
      let lastSent = started;
      const notify = (message: string) => {
        if (token === undefined || extra.signal.aborted) return;
        progress += 1;
        lastSent = performance.now();
        extra
          .sendNotification({
            method: 'notifications/progress',
            params: { progressToken: token, progress, message },
          })
          .catch(() => undefined);
      };
      const heartbeatMs = options.heartbeatMs ?? DEFAULT_HEARTBEAT_SECONDS * 1000;
      const heartbeat =
        token === undefined
          ? undefined
          : setInterval(
              () => {
                const now = performance.now();
                if (now - lastSent >= heartbeatMs * 0.9)
                  notify(`still running (${Math.round((now - started) / 1000)} s)`);
              },
              Math.max(10, heartbeatMs / 2),
            );
      heartbeat?.unref();
      const controller = new AbortController();
      calls.controllers.add(controller);
      const abort = () => controller.abort();
      extra.signal.addEventListener('abort', abort, { once: true });
      log(`${who}: aip ${argv.join(' ')}`);
      try {
        const running = runVerb(argv, {
          build: options.build,
          deps: options.deps,
          env: options.env,
          signal: controller.signal,
          onLine: (line) => {
            const text = redact(line);
            log(`${who}: ${text}`);
            notify(text);
          },
        });
        calls.runs.add(running);
        const run = await running.finally(() => calls.runs.delete(running));
        log(`${who}: exit ${run.code}`);
        return resultOf(tool, run);
      } finally {
        clearInterval(heartbeat);
        extra.signal.removeEventListener('abort', abort);
        calls.controllers.delete(controller);
      }
    },
  );
}

function registerPrompt(server: McpServer, tools: ReadonlySet<string>): void {
  server.registerPrompt(
    TRAIN_AGENT.name,
    {
      title: TRAIN_AGENT.title,
      description: TRAIN_AGENT.description,
      argsSchema: {
        tasks: z.string().describe('the tasks file (JSON Lines; aip://formats/tasks)'),
        name: z.string().optional().describe('the name of the model to train (default: agent)'),
        base_model: z.string().optional().describe('the base model (default: OpenPipe/Qwen3-14B-Instruct)'),
        reward: z
          .string()
          .optional()
          .describe(
            'a built-in reward (exact, contains, regex, json-match), or cmd:COMMAND (default: exact)',
          ),
      },
    },
    (args) => ({
      messages: [{ role: 'user', content: { type: 'text', text: trainAgentPrompt(args, tools) } }],
    }),
  );
}

/**
 * Serves over stdio until it ends. The client closing stdin: the calls under way are answered (a
 * pipeline's last calls), then the server stops; a cancelled call is never answered, so not waited
 * for. Ctrl-C, SIGTERM, or the client gone from stdout (options.stop): the calls are interrupted and
 * it stops at once.
 */
async function serveStdio(server: McpServer, options: McpOptions, calls: Calls): Promise<void> {
  const { stdin, stop } = options;
  const transport = new StdioServerTransport(
    stdin as typeof process.stdin,
    options.stdout as unknown as typeof process.stdout,
  );
  const closed = new Promise<void>((resolve) => {
    transport.onclose = resolve;
  });
  const close = () => void transport.close();
  const pending = new Set<string | number>();
  let ending = false;
  const closeWhenAnswered = () => {
    if (ending && pending.size === 0) close();
  };
  const stopNow = () => {
    for (const controller of calls.controllers) controller.abort();
    close();
  };
  await server.connect(transport);
  // Requests counted as they come and as they are answered (the transport, wrapped once connected).
  const receive = transport.onmessage;
  transport.onmessage = (message: JSONRPCMessage) => {
    if ('method' in message && 'id' in message) pending.add(message.id);
    if ('method' in message && message.method === 'notifications/cancelled')
      pending.delete((message.params as { requestId: string | number }).requestId);
    receive?.(message);
    closeWhenAnswered();
  };
  const send = transport.send.bind(transport);
  transport.send = async (message: JSONRPCMessage) => {
    await send(message);
    if (!('method' in message) && 'id' in message && message.id !== undefined) pending.delete(message.id);
    closeWhenAnswered();
  };
  const end = () => {
    ending = true;
    closeWhenAnswered();
  };
  if (stdin.readableEnded) end();
  else stdin.once('end', end);
  stop.addEventListener('abort', stopNow, { once: true });
  await closed;
  stdin.off('end', end);
  stop.removeEventListener('abort', stopNow);
}

export async function serveMcp(options: McpOptions): Promise<void> {
  const tools = deriveTools(options.root, {
    readOnly: options.readOnly,
    allowCommands: options.allowCommands === true,
  });
  const server = new McpServer(
    {
      name: 'aip',
      title: 'aip: train, chat with and trace models on the serverless ML platform',
      version: VERSION,
    },
    { instructions: INSTRUCTIONS },
  );
  const calls: Calls = { controllers: new Set(), runs: new Set() };
  for (const tool of tools) registerTool(server, tool, options, calls);
  for (const resource of resourcesOf(options)) {
    server.registerResource(
      resource.name,
      resource.uri,
      { title: resource.title, description: resource.description, mimeType: resource.mimeType },
      async (uri) => ({
        contents: [{ uri: uri.href, mimeType: resource.mimeType, text: await resource.read() }],
      }),
    );
  }
  registerPrompt(server, new Set(tools.map((t) => t.name)));
  options.log(
    `aip mcp: ${tools.length} tools${options.readOnly ? ' (read-only)' : ''} on stdio; stops when stdin closes`,
  );
  await serveStdio(server, options, calls);
  for (const controller of calls.controllers) controller.abort();
  await Promise.allSettled(calls.runs);
  await server.close().catch(() => undefined);
}
