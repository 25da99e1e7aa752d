// A noun's verbs are added to the tree either when the noun is registered or, in a tree built for one
// command line (main), when the noun runs: `aip --help` then builds the 14 commands it lists instead
// of all 51, and `aip jobs …` the root, the nouns and the verbs of jobs. Help is the same either way:
// a noun's line in its parent's help does not depend on its verbs, and the verbs are added to the
// noun as registration left it (commander copies a parent's settings to a command when the command is
// made, and nothing changes a noun's settings after registration). What walks the whole tree (`aip
// help <command>`, `aip completion`, the CI annotation's command path) asks for it with wholeTree().

import type { Parent } from './types.js';

/** Per tree built for one command line (its root), the nouns whose verbs wait, and how to add them. */
const waiting = new WeakMap<Parent, Map<Parent, () => void>>();

/** Adds a noun's verbs: now, or when the noun runs if its tree was built with deferVerbs(). */
export function verbs(noun: Parent, add: () => void): void {
  const pending = noun.parent ? waiting.get(noun.parent) : undefined;
  if (pending) pending.set(noun, add);
  else add();
}

/** Commands whose options wait as verbs do (see options()): their help line still says [options]. */
const waitingOptions = new WeakSet<Parent>();

/**
 * Adds a top-level command's options as verbs() adds a noun's verbs: now, or when it runs in a tree
 * built for one command line. `aip --help` then builds none of rollouts' or eval's twenty-odd options;
 * the root's help line says "[options]" all the same (hasWaitingOptions). Used through
 * withWaitingOptions(), which gives the definition its type.
 */
function options(command: Parent, add: () => void): void {
  const pending = command.parent ? waiting.get(command.parent) : undefined;
  if (!pending) {
    add();
    return;
  }
  waitingOptions.add(command);
  pending.set(command, () => {
    waitingOptions.delete(command);
    add();
  });
}

/**
 * The definition of a top-level command whose options wait (options() above): `define(parent)` adds
 * the command now and its options when it runs, and returns it typed as it will be then. Its action
 * (set on what define returns) runs only after they are added, and `OptionsOf<typeof define>` is the
 * type of the definition that is used, not of one written out again only to be read.
 */
export function withWaitingOptions<C extends Parent, D extends Parent>(
  command: (parent: Parent) => C,
  addOptions: (command: C) => D,
): (parent: Parent) => D {
  return (parent) => {
    const made = command(parent);
    options(made, () => addOptions(made));
    // The same object: adding options returns the command they were added to (commander's chaining).
    return made as unknown as D;
  };
}

/** Whether the command has options still to be added (help says "[options]" for them). */
export function hasWaitingOptions(command: Parent): boolean {
  return waitingOptions.has(command);
}

/** From now on, the verbs of the nouns added to `root` wait until the noun is dispatched to. */
export function deferVerbs(root: Parent): void {
  waiting.set(root, new Map());
  root.hook('preSubcommand', (_root, noun) => addVerbs(root, noun));
}

function addVerbs(root: Parent, noun: Parent): void {
  const pending = waiting.get(root);
  const add = pending?.get(noun);
  if (!pending || !add) return;
  pending.delete(noun);
  add();
}

/** The tree with every verb in it, for what walks all of it. */
export function wholeTree<C extends Parent>(root: C): C {
  for (const noun of [...(waiting.get(root)?.keys() ?? [])]) addVerbs(root, noun);
  return root;
}

/**
 * The tree with the verbs of the nouns named in `words` (by name or alias), for what walks one line
 * of it: a TAB completes within the nouns typed, and adding every noun's verbs cost it ~18 ms.
 */
export function treeFor<C extends Parent>(root: C, words: readonly string[]): C {
  const named = new Set(words);
  for (const noun of [...(waiting.get(root)?.keys() ?? [])])
    if (named.has(noun.name()) || noun.aliases().some((alias) => named.has(alias))) addVerbs(root, noun);
  return root;
}
