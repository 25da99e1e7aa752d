// The names every JavaScript object answers to without holding them: the own and inherited properties
// of Object.prototype, Function.prototype and Array.prototype, and the few that matter most. A name a
// user types, a file holds or a server sends is fed as each of these to every kind of name aip takes
// (builtin-names.test.ts): looked up on a plain object, they would find a built-in (issue 28).

function propertyNames(...objects: object[]): string[] {
  const names: string[] = [];
  for (let o of objects) {
    for (; o !== null; o = Object.getPrototypeOf(o)) names.push(...Object.getOwnPropertyNames(o));
  }
  return names;
}

export const BUILTIN_NAMES: readonly string[] = [
  ...new Set([
    '__proto__',
    'constructor',
    'prototype',
    'toString',
    'valueOf',
    'hasOwnProperty',
    '__defineGetter__',
    ...propertyNames(Object.prototype, Function.prototype, Array.prototype),
  ]),
].sort();
