// Which Node.js aip runs on (package.json engines: >=20.19). The lines users run, and CI tests, are 22,
// 24 and 26 (.ci/run: the suite on this machine's Node and on 24, a smoke of every command on 22 and
// 26). 20.19+ still works, but Node 20 reached its end of life on 2026-04-30: no more security fixes.

export const MIN_NODE = { major: 20, minor: 19 } as const;
export const SUPPORTED_LINES = [22, 24, 26] as const;
const END_OF_LIFE: Readonly<Record<number, string>> = { 20: '2026-04-30' };

export type NodeSupport =
  | { level: 'supported' }
  | { level: 'end-of-life'; since: string }
  | { level: 'too-old' };

export function nodeSupport(version: string = process.versions.node): NodeSupport {
  const [major = 0, minor = 0] = version.replace(/^v/, '').split('.').map(Number);
  if (major < MIN_NODE.major || (major === MIN_NODE.major && minor < MIN_NODE.minor))
    return { level: 'too-old' };
  const since = Object.hasOwn(END_OF_LIFE, major) ? END_OF_LIFE[major] : undefined;
  return since ? { level: 'end-of-life', since } : { level: 'supported' };
}
