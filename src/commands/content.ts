// Options and arguments that carry what is said to a model (a chat's prompt, its system prompt, its
// messages). The history keeps a command line, and with history bodies off it must not keep what was
// said in it either (history/recorder.ts): their values are known here, from the definition.

import type { Argument, Command, Option } from 'commander';

const marked = new WeakSet<object>();

/** Marks an option or argument as one whose value is content. */
export function content<T extends Option | Argument | object>(target: T): T {
  marked.add(target);
  return target;
}

/** The values the command was given for its content options and arguments, each as a string. */
export function contentValues(command: Command): string[] {
  const values: unknown[] = [];
  const opts = command.opts();
  for (const option of command.options) if (marked.has(option)) values.push(opts[option.attributeName()]);
  command.registeredArguments.forEach((argument, i) => {
    if (marked.has(argument)) values.push(command.processedArgs[i]);
  });
  return values.flat().filter((v): v is string => typeof v === 'string' && v !== '');
}
