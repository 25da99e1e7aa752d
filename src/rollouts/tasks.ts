// A tasks file for rollouts and eval: JSON Lines (or one JSON array), each task a conversation seed:
//   {"id"?: "t1", "messages": [...], "tools"?: [...], "reference"?: any, "metadata"?: {...}}
// Messages and tools have the types the chat APIs take; the conversation ends with a user (or tool)
// turn, since the model is asked to answer it. A task without an id is named by its place in the
// file ("3" for the third); ids must be unique, since groups are matched to tasks by id on --resume.
// The whole file is checked before anything is sampled, and every problem is listed.

import { lineLimitFrom } from '../api/limits.js';
import type { ChatMessage } from '../chat/types.js';
import { annotateProblems } from '../ci/problems.js';
import type { Context } from '../context.js';
import { UsageError } from '../errors/errors.js';
import { openSource } from '../fs/open-source.js';
import { functionTool, messageParam } from './../validate/chat-schema.js';
import { checkDocuments, problemLines, requireDocuments } from '../validate/check-file.js';
import {
  anyOf,
  anything,
  arr,
  type Issue,
  int,
  nonEmpty,
  nullable,
  obj,
  record,
  str,
  validate,
} from '../validate/schema.js';

export interface Task {
  id: string;
  messages: ChatMessage[];
  tools?: unknown[] | null;
  reference?: unknown;
  metadata?: Record<string, unknown>;
}

const taskShape = obj(
  { messages: nonEmpty(arr(messageParam)) },
  {
    id: anyOf('a string or a whole number', str, int),
    tools: nullable(arr(functionTool)),
    reference: anything,
    metadata: record(anything),
  },
);

function taskIssues(value: unknown, seen: Map<string, number>, place: number): Issue[] {
  const issues = validate(taskShape, value);
  if (issues.length > 0) return issues;
  const task = value as { id?: string | number; messages: Array<{ role: string }> };
  const last = task.messages.at(-1)!;
  if (last.role === 'assistant')
    issues.push({
      path: ['messages', task.messages.length - 1, 'role'],
      type: 'value_error',
      msg: "the last message is the assistant's: a task ends with the turn the model is to answer",
    });
  const id = String(task.id ?? place);
  const earlier = seen.get(id);
  if (earlier !== undefined)
    issues.push({
      path: task.id === undefined ? [] : ['id'],
      type: 'value_error',
      msg: `task id "${id}" is also task ${earlier}'s: ids must be unique`,
    });
  else seen.set(id, place);
  return issues;
}

/** The tasks of a file, or a usage error (exit 2) after listing every problem; nothing is sampled. */
export async function readTasks(ctx: Context, path: string): Promise<Task[]> {
  const seen = new Map<string, number>();
  let place = 0;
  const checked = await checkDocuments(
    openSource(path, ctx.io, lineLimitFrom(ctx.env)),
    (value) => taskIssues(value, seen, ++place),
    { collect: true },
  );
  requireDocuments(checked, 'tasks');
  annotateProblems(ctx.io, checked, 'invalid task');
  if (checked.problemCount > 0) {
    for (const line of problemLines(checked)) ctx.io.err(line);
    throw new UsageError(
      `${checked.name}: ${checked.problemCount} problem${checked.problemCount === 1 ? '' : 's'} in ${checked.documents} task${checked.documents === 1 ? '' : 's'}; nothing was sampled`,
    );
  }
  return checked.values.map((value, i) => {
    const raw = value as Omit<Task, 'id'> & { id?: string | number };
    return { ...raw, id: String(raw.id ?? i + 1) };
  });
}
