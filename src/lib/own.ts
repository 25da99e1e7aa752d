// Looking up a name that comes from outside (a flag, the environment, a file, a server) in a plain
// object. `obj[name]` finds what every object inherits too: `constructor`, `toString`, `__proto__`,
// `valueOf`… are there in an empty `{}`, so a profile named `constructor` would be found. Every such
// lookup goes through here: a property counts only when the object has it as its own. A structure that
// is a dictionary is made without a prototype (`dictionary`), or is a Map.

/** Whether `obj` has `key` as its own property (never one it inherits); false for no object. */
export function hasOwnKey(obj: object | null | undefined, key: PropertyKey): boolean {
  return obj !== null && obj !== undefined && Object.hasOwn(obj, key);
}

/** The value of `obj`'s own property `key`; undefined when it has none (an inherited one does not count). */
export function ownValue<V>(obj: Readonly<Record<string, V>> | null | undefined, key: string): V | undefined {
  return hasOwnKey(obj, key) ? obj![key] : undefined;
}

/**
 * A dictionary with no prototype, holding the own enumerable entries of `from` (an object or entries):
 * nothing is inherited, and `__proto__` is a key like any other (stored, never the object's prototype).
 */
export function dictionary<V>(
  from?: Readonly<Record<string, V>> | Iterable<readonly [string, V]>,
): Record<string, V> {
  const out = Object.create(null) as Record<string, V>;
  if (from === undefined) return out;
  const entries = Symbol.iterator in from ? (from as Iterable<readonly [string, V]>) : Object.entries(from);
  for (const [key, value] of entries) out[key] = value;
  return out;
}
