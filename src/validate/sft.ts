// SFT training examples (api-contract.md §2.10): JSON Lines, each {"messages": [...], "tools"?: [...]}
// with OpenAI chat messages. Beyond the types: messages must not be empty, roles are system, user,
// assistant or tool, the last message is the assistant's (only assistant tokens are trained on), an
// assistant message says something or calls a tool, tool-call arguments are JSON, a tool message
// answers an earlier tool call, and a tool's parameters are a JSON Schema object.

import { annotateProblems } from '../ci/problems.js';
import { openSource } from '../fs/open-source.js';
import { isObject } from '../lib/json.js';
import type { IO } from '../output/io.js';
import { functionTool, messageParams, tagged } from './chat-schema.js';
import { type CheckedFile, checkDocuments, requireDocuments } from './check-file.js';
import { arr, type Issue, nullable, obj, validate } from './schema.js';

const sftMessage = tagged(
  'role',
  {
    system: messageParams.system!,
    user: messageParams.user!,
    assistant: messageParams.assistant!,
    tool: messageParams.tool!,
  },
  'message',
);

export const sftExample = obj({ messages: arr(sftMessage) }, { tools: nullable(arr(functionTool)) });

export interface SftStats {
  examples: number;
  messages: number;
  withTools: number;
}

export function emptySftStats(): SftStats {
  return { examples: 0, messages: 0, withTools: 0 };
}

type Message = Record<string, unknown> & { role: string };

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** The checks beyond the types, on an example whose types are right. */
function semanticIssues(example: { messages: Message[]; tools?: unknown[] | null }): Issue[] {
  const issues: Issue[] = [];
  const { messages } = example;
  if (messages.length === 0) {
    return [
      {
        path: ['messages'],
        type: 'too_short',
        msg: 'messages must not be empty: an example needs at least one assistant turn',
      },
    ];
  }
  const last = messages.at(-1)!;
  if (last.role !== 'assistant') {
    issues.push({
      path: ['messages', messages.length - 1, 'role'],
      type: 'value_error',
      msg: `the last message must be the assistant's (only assistant turns are trained on), not '${last.role}'`,
    });
  }
  const callIds = new Set<string>();
  messages.forEach((m, i) => {
    if (m.role === 'assistant') {
      const calls = Array.isArray(m.tool_calls) ? (m.tool_calls as Array<Record<string, unknown>>) : [];
      const content = m.content;
      const hasContent =
        typeof content === 'string' ? content.length > 0 : Array.isArray(content) && content.length > 0;
      if (!hasContent && calls.length === 0 && !m.function_call) {
        issues.push({
          path: ['messages', i],
          type: 'value_error',
          msg: 'an assistant message needs content or tool_calls',
        });
      }
      calls.forEach((call, c) => {
        if (typeof call.id === 'string') callIds.add(call.id);
        const fn = call.function as Record<string, unknown> | undefined;
        if (call.type === 'function' && typeof fn?.arguments === 'string' && !isJson(fn.arguments)) {
          issues.push({
            path: ['messages', i, 'tool_calls', c, 'function', 'arguments'],
            type: 'json_invalid',
            msg: 'arguments must be a JSON text (a string holding JSON)',
          });
        }
      });
    }
    if (m.role === 'tool' && typeof m.tool_call_id === 'string' && !callIds.has(m.tool_call_id)) {
      issues.push({
        path: ['messages', i, 'tool_call_id'],
        type: 'value_error',
        msg: `no earlier assistant message calls a tool with id "${m.tool_call_id}"`,
      });
    }
  });
  (example.tools ?? []).forEach((tool, t) => {
    const parameters = isObject(tool) && isObject(tool.function) ? tool.function.parameters : undefined;
    if (parameters !== undefined && (!isObject(parameters) || parameters.type !== 'object')) {
      issues.push({
        path: ['tools', t, 'function', 'parameters'],
        type: 'value_error',
        msg: 'parameters must be a JSON Schema with "type": "object"',
      });
    }
  });
  return issues;
}

/** Checks one example; on success adds it to the running totals. */
export function checkSftExample(value: unknown, stats: SftStats): Issue[] {
  const issues = validate(sftExample, value);
  if (issues.length > 0) return issues;
  const example = value as { messages: Message[]; tools?: unknown[] | null };
  const semantic = semanticIssues(example);
  if (semantic.length > 0) return semantic;
  stats.examples++;
  stats.messages += example.messages.length;
  if (example.tools?.length) stats.withTools++;
  return [];
}

/**
 * Checks a file of SFT examples (JSON Lines, or - for stdin); an empty file is a problem.
 * `maxLineBytes`: the line-size limit in effect (lineLimitFrom(ctx.env)).
 */
export async function checkSftFile(
  path: string,
  io: IO,
  maxLineBytes?: number,
): Promise<{ checked: CheckedFile; stats: SftStats }> {
  const stats = emptySftStats();
  const source = openSource(path, io, maxLineBytes);
  const checked = await checkDocuments(source, (value) => checkSftExample(value, stats));
  requireDocuments(checked, 'training examples');
  // On CI, each problem as an annotation on its line too.
  annotateProblems(io, checked, 'invalid training example');
  return { checked, stats };
}
