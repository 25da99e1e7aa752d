// The GenAI attributes traces exec and span take as flags (--operation, --agent, --conversation,
// --tool). Sending what they make is traces/make/emit.ts, which chat --trace uses too.

import { UsageError } from '../../errors/errors.js';
import { type GenAiOperation, genAiSpanName, type SpanKind, stringAttr } from '../../traces/make/span.js';
import type { PbKeyValue } from '../../traces/otlp/otlp.js';
import type { SpanAttributeOptions } from './flags.js';

/** The GenAI flags of exec and span (flags.ts), as they are given them. */
type GenAiFlags = Pick<SpanAttributeOptions, 'operation' | 'agent' | 'conversation' | 'tool'>;

/** Each GenAI attribute exec and span set, and the flag that sets it. */
const GEN_AI_FLAGS: Array<[key: string, flag: string, from: keyof GenAiFlags]> = [
  ['gen_ai.operation.name', '--operation', 'operation'],
  ['gen_ai.agent.name', '--agent', 'agent'],
  ['gen_ai.conversation.id', '--conversation', 'conversation'],
  ['gen_ai.tool.name', '--tool', 'tool'],
];

/**
 * The GenAI attributes of an exec or span (api-contract.md §4.3) and the name they give it. The
 * operation is --operation, else the one --agent (invoke_agent) or --tool (execute_tool) imply, else
 * the command's `fallback` (exec: execute_tool of the command), else for --conversation alone a turn
 * of the conversation (invoke_agent); with none of them, a plain span without GenAI attributes.
 * An --attr of a key these set is refused: two values for one key, and nothing says which was meant.
 */
export function genAiAttributes(
  given: GenAiFlags,
  user: readonly PbKeyValue[],
  fallback: { operation: GenAiOperation; tool: string } | undefined,
): { attributes: PbKeyValue[]; name?: string; operation?: GenAiOperation } {
  for (const [, flag, from] of GEN_AI_FLAGS) {
    if (given[from] === '') throw new UsageError(`${flag} needs a value`);
  }
  const implied = given.agent ? 'invoke_agent' : given.tool ? 'execute_tool' : undefined;
  const operation =
    given.operation ?? implied ?? fallback?.operation ?? (given.conversation ? 'invoke_agent' : undefined);
  if (!operation) return { attributes: [] };
  // exec names the command as the tool it runs, unless it is told the span is something else.
  const values: GenAiFlags = {
    ...given,
    operation,
    tool: given.tool ?? (operation === 'execute_tool' ? fallback?.tool : undefined),
  };
  for (const { key } of user) {
    const clash = GEN_AI_FLAGS.find(([k, , from]) => k === key && values[from] !== undefined);
    if (clash) {
      const [, flag, from] = clash;
      throw new UsageError(
        given[from] === undefined
          ? `--attr ${key}: this span's ${key} is ${values[from]} (from its other flags, or by default); set it with ${flag} instead`
          : `--attr ${key}: ${flag} sets it already; give only one of them`,
      );
    }
  }
  const attributes = GEN_AI_FLAGS.flatMap(([key, , from]) => {
    const value = values[from];
    return value === undefined ? [] : [stringAttr(key, value)];
  });
  const model = user.find((a) => a.key === 'gen_ai.request.model')?.value?.stringValue ?? undefined;
  const target = { chat: model, invoke_agent: values.agent, execute_tool: values.tool }[operation];
  return { attributes, name: genAiSpanName(operation, target), operation };
}

/**
 * A span's kind when --kind is not given, as the conventions have it: a chat is a call to a model
 * server (client); an agent run here, a tool and a plain span are internal.
 */
export function defaultKind(operation: GenAiOperation | undefined): keyof typeof SpanKind {
  return operation === 'chat' ? 'client' : 'internal';
}
