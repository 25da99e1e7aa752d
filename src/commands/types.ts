// What a verb's implementation knows of its command line comes from the verb's definition: the types
// of its options and arguments are inferred from the flags, parsers, defaults and choices the
// definition declares (@commander-js/extra-typings), never written again by hand. A flag renamed in
// the definition is an error wherever the implementation still reads the old name.

import type { CommandUnknownOpts } from '@commander-js/extra-typings';

/** What a verb is added to: the program, a noun, or a group such as `jobs create`. */
export type Parent = CommandUnknownOpts;

/** A verb's definition: adds the command (name, help, arguments, options) to its parent, returns it. */
type Definition = (...args: never[]) => CommandUnknownOpts;

/** The options a verb's action is given, as its definition makes them. */
export type OptionsOf<D extends Definition> = ReturnType<ReturnType<D>['opts']>;

/** Its arguments, in order, as its definition makes them. */
export type ArgumentsOf<D extends Definition> = ReturnType<D>['processedArgs'];
