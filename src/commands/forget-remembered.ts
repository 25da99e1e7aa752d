// What `aip models forget` and `aip jobs forget` do (each verb's handler calls it with its noun's
// local record): drop entries from the local record (models.json,
// jobs.json) of the current base URL. Never asks the server to change anything: by name or id, every
// entry (--all, confirmed as a delete is), or the entries whose id the server no longer knows
// (--stale, one cheap GET each). Stdout: the ids forgotten, one a line (--json: the entries); stderr:
// what was done.

import type { Context } from '../context.js';
import { UsageError } from '../errors/errors.js';
import { plural } from '../output/plural.js';
import { confirmDestructive } from './confirm.js';
import type { forgetOptions } from './forget.js';

/** The flags forgetOptions() adds, as either noun's verb is given them. */
type ForgetFlags = ReturnType<
  ReturnType<typeof forgetOptions<[], Record<never, never>, Record<never, never>>>['opts']
>;

export interface Forgettable<T extends { id: string; base_url: string }> {
  noun: 'model' | 'job';
  /** The entries of every base URL. */
  read: () => T[];
  /** The remembered entry `ref` names (a UUID that is not remembered is not found, exit 3). */
  resolve: (ref: string) => T;
  /** Asks the server; true for a 404. */
  isGone: (entry: T) => Promise<boolean>;
  /** Removes these ids of the current base URL, in one locked write; returns what went. */
  forget: (ids: string[]) => Promise<T[]>;
  /** An entry in a few words, for the summary. */
  describe: (entry: T) => string;
}

const SHOWN = 5;

export async function runForget<T extends { id: string; base_url: string }>(
  ctx: Context,
  kind: Forgettable<T>,
  refs: readonly string[],
  options: ForgetFlags,
): Promise<void> {
  const { io } = ctx;
  const { noun } = kind;
  const ways = [refs.length > 0, options.all === true, options.stale === true].filter(Boolean).length;
  if (ways !== 1) {
    throw new UsageError(
      ways === 0
        ? `say what to forget: ${noun}s by ${noun === 'model' ? 'name or id' : 'id or its start'}, --all, or --stale`
        : `give ${noun}s to forget, --all or --stale: one of them`,
    );
  }
  const baseUrl = ctx.serviceUrl('training');
  let targets: T[];
  if (refs.length > 0) {
    // Every name is resolved before anything is forgotten: one that names nothing forgets nothing.
    const byId = new Map<string, T>();
    for (const ref of refs) {
      const entry = kind.resolve(ref);
      byId.set(entry.id, entry);
    }
    targets = [...byId.values()];
  } else {
    const known = kind.read().filter((e) => e.base_url === baseUrl);
    if (known.length === 0) {
      if (ctx.json) io.json([]);
      io.info(`No ${noun}s are remembered for ${baseUrl}: nothing to forget`);
      return;
    }
    if (options.all) {
      await confirmDestructive(
        ctx,
        `Forget all ${plural(known.length, noun)} remembered for ${baseUrl}? (The server is not asked; they stay there.)`,
        `forget every remembered ${noun}`,
      );
      targets = known;
    } else {
      targets = [];
      for (const entry of known) {
        try {
          if (await kind.isGone(entry)) targets.push(entry);
        } catch (error) {
          io.warn(`could not check ${kind.describe(entry)}: nothing was forgotten`);
          throw error;
        }
      }
      if (targets.length === 0) {
        if (ctx.json) io.json([]);
        io.info(
          `All ${plural(known.length, `remembered ${noun}`)} still exist on ${baseUrl}: nothing to forget`,
        );
        return;
      }
    }
  }
  const removed = await kind.forget(targets.map((e) => e.id));
  if (ctx.json) io.json(removed);
  else for (const entry of removed) io.out(entry.id);
  const names = removed.slice(0, SHOWN).map(kind.describe);
  if (removed.length > SHOWN) names.push(`and ${removed.length - SHOWN} more`);
  const why = options.stale ? ` (the server no longer knows ${removed.length === 1 ? 'it' : 'them'})` : '';
  io.info(
    removed.length === 0
      ? `Nothing to forget: no such ${noun} is remembered for ${baseUrl} any more`
      : `Forgot ${plural(removed.length, noun)} remembered for ${baseUrl}${why}: ${names.join(', ')}`,
  );
}
