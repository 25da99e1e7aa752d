// What the values of an option or an argument are, for completion (`aip __complete`), declared where
// the option or argument is defined, as gh declares a flag's completion next to the flag:
//   .addOption(valueKind('file', new Option('--tasks <file>', TASKS_HELP)))
// The completer reads it from the command tree, so a new verb's definition is the only place its flags
// are described. Choices (`.choices()`) need no kind: the completer offers them from the definition.
// An option or argument without a kind completes to nothing: no files where a file is not expected.

/**
 * file and directory: the shell completes paths. profile: built-in and stored profile names. job: the
 * ids of jobs created from this machine. model: names of models created from this machine.
 * chat-model: those and the default-model setting. reward: the built-in rewards and judge:.
 */
export type ValueKind = 'file' | 'directory' | 'profile' | 'job' | 'model' | 'chat-model' | 'reward';

// Kept beside commander's Option and Argument objects rather than on them: their classes stay as
// commander types them, and each object belongs to one command (a shared flag is made afresh per command).
const kinds = new WeakMap<object, ValueKind>();

/** Declares the kind of an option's or argument's values; returns it as given, for addOption/addArgument. */
export function valueKind<T extends object>(kind: ValueKind, target: T): T {
  kinds.set(target, kind);
  return target;
}

/** The kind declared on an option or argument, if any. */
export function valueKindOf(target: object): ValueKind | undefined {
  return kinds.get(target);
}
