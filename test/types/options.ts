// Checked by tsc, not run: `npm run lint` (tsc --noEmit) type-checks this file, as tsconfig includes
// test/. A verb's options are inferred from its definition's flags (src/commands/types.ts), so a flag
// renamed in the definition is a compile error wherever the implementation still reads the old name.
// Each @ts-expect-error below must meet an error: were the inference to stop (options typed `any`
// again, as commander's own typings give them), the directive would be unused, and that fails tsc too.

import type { ChatOptions } from '../../src/commands/chat/chat.js';
import type { ListOptions } from '../../src/commands/checkpoints/list.js';
import type { Shell } from '../../src/commands/completion/completion.js';
import type { EmulatorStartOptions } from '../../src/commands/emulator/start.js';
import type { CreateRlOptions, CreateSftOptions } from '../../src/commands/jobs/create.js';
import { parseLimit } from '../../src/commands/parsers.js';
import type { SpanOptions } from '../../src/commands/traces/span.js';
import type { OptionsOf, Parent } from '../../src/commands/types.js';

/** true when A and B are the same type (not merely assignable either way). */
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
type Assert<T extends true> = T;

// What the flags of `aip checkpoints list` make: a parser's type, choices, a boolean flag.
export type ListIsInferred = Assert<
  Equal<ListOptions, { limit?: number; after?: string; order?: 'asc' | 'desc'; all?: true; plot?: string }>
>;

// @ts-expect-error: there is no --limt flag (a typo, or a flag renamed away)
export type Typo = ListOptions['limt'];

// @ts-expect-error: --limit is parsed into a number
export const wrongType: ListOptions = { limit: '20' };

/**
 * The mismatch the inferred types catch: `aip checkpoints list` with --limit renamed to --max. The
 * implementation, which reads options.limit, no longer compiles against the renamed definition.
 */
const renamed = (checkpoints: Parent) =>
  checkpoints.command('list').argument('<model>').option('--max <n>', 'checkpoints per page', parseLimit);

export function implementationOfRenamed(options: OptionsOf<typeof renamed>): number | undefined {
  // @ts-expect-error: Property 'limit' does not exist on type '{ max?: number | undefined; }'
  return options.limit;
}

// A required option, a default, a repeatable one, a --flag/--no-flag pair, choices and a parser's
// union, each as the definition has it.
export type Required = Assert<Equal<CreateRlOptions['model'], string>>;
export type Defaulted = Assert<Equal<EmulatorStartOptions['port'], number>>;
export type Repeatable = Assert<Equal<EmulatorStartOptions['apiKey'], string[] | undefined>>;
export type Negatable = Assert<Equal<ChatOptions['stream'], boolean | undefined>>;
export type Choices = Assert<Equal<ChatOptions['api'], 'inference' | 'training' | undefined>>;
export type ParserUnion = Assert<Equal<CreateSftOptions['batchSize'], number | 'auto' | undefined>>;
// The flags traces exec and span share, from one definition (traces/flags.ts).
export type Shared = Assert<
  Equal<SpanOptions['kind'], 'internal' | 'server' | 'client' | 'producer' | 'consumer' | undefined>
>;
// Arguments too: completion's <shell> from its choices.
export type Argument = Assert<Equal<Shell, 'bash' | 'zsh' | 'fish'>>;

// @ts-expect-error: an RL job has no --data-url (that is sft's)
export type NotAnRlFlag = CreateRlOptions['dataUrl'];
