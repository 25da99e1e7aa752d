// The workflow commands a GitHub Actions runner finds in what a step wrote, by the runner's own rules
// (actions/runner), written from its source rather than from aip's neutraliser (src/ci/runner-lines.ts):
// - lines: src/Runner.Sdk/ProcessInvoker.cs reads each stream with StreamReader.ReadLine, which ends a
//   line at "\n", "\r\n" or a lone "\r";
// - src/Runner.Worker/Handlers/OutputManager.cs OnDataReceived hands each line to
//   ActionCommandManager.TryProcessCommand, which tries ActionCommand.TryParseV2, then TryParse
//   (src/Runner.Common/ActionCommand.cs), with the names registered in ActionCommandManager.cs
//   (compared ignoring case), and the token of a ::stop-commands:: from then on.
//
// TryParseV2 and TryParse find "::" and "##[" with .NET's culture-sensitive StartsWith and IndexOf
// (ICU), which pass over characters of no collation weight (controls, format characters,
// default-ignorables): "#\u200B#[" is found as "##[". The command's name is then cut out at ordinal
// indices (the match's start + 3, say), so a passed-over character inside the match shifts the cut;
// where ICU reports a match to start when characters of no weight come before it is not pinned down
// here, so every start it could report is tried.
//
// `strict` reads each line more ways still, each ordinal, as written and with the characters of no
// weight taken out: a command found any way counts. It finds more than any runner could, and aip must
// give it nothing either, but where aip's own escape sequences (colour) are involved.

export interface FoundCommand {
  command: string;
  data: string;
  properties: Record<string, string>;
  syntax: 'v2' | 'v1';
  line: string;
}

/** "stop-commands" and the command extensions of ActionCommandManager.cs (internal-set-repo-path: plugins'). */
const REGISTERED = [
  'stop-commands',
  'set-env',
  'set-output',
  'save-state',
  'add-mask',
  'add-path',
  'add-matcher',
  'remove-matcher',
  'debug',
  'warning',
  'error',
  'notice',
  'group',
  'endgroup',
  'echo',
  'internal-set-repo-path',
];

/** .NET's char.IsWhiteSpace, which string.TrimStart removes. */
const DOTNET_WHITE_SPACE = /^[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+/;

/** What ICU's root collation gives no weight at any level, and culture-sensitive matching passes over. */
const NO_WEIGHT = /(?![\t\n\v\f\r\u0085])[\p{Cc}\p{Cf}\p{Default_Ignorable_Code_Point}]/u;
const NO_WEIGHT_ALL = new RegExp(NO_WEIGHT.source, 'gu');

/** The width (1 or 2 code units) of the character of no weight at `at`, or 0. */
function noWeightAt(s: string, at: number): number {
  const code = s.codePointAt(at);
  if (code === undefined) return 0;
  const ch = String.fromCodePoint(code);
  return NO_WEIGHT.test(ch) ? ch.length : 0;
}

/** Where `pattern` matches from `at` on, passing over characters of no weight: the end, or -1. */
function matchAt(s: string, at: number, pattern: string): number {
  let i = at;
  for (let k = 0; k < pattern.length; ) {
    const skip = k > 0 ? noWeightAt(s, i) : 0;
    if (skip > 0) i += skip;
    else if (s[i] === pattern[k]) {
      i++;
      k++;
    } else return -1;
  }
  return i;
}

/** string.StartsWith(pattern), culture-sensitive. */
function cultureStartsWith(s: string, pattern: string): boolean {
  let at = 0;
  for (let skip = noWeightAt(s, at); skip > 0; skip = noWeightAt(s, at)) at += skip;
  return matchAt(s, at, pattern) >= 0;
}

/**
 * string.IndexOf(pattern, from), culture-sensitive: the first match, as every index ICU could report
 * as its start (its first character, or one of the characters of no weight just before it).
 */
function cultureIndexOf(s: string, pattern: string, from: number): number[] {
  for (let q = from; q < s.length; q++) {
    if (s[q] !== pattern[0] || matchAt(s, q, pattern) < 0) continue;
    const starts = [q];
    for (let p = q - 1; p >= from && noWeightAt(s, p) > 0; p--) starts.push(p);
    return starts;
  }
  return [];
}

/** ActionCommand's unescaping: each mapping in its order ("%" last, so "%250A" stays "%0A"). */
export const decode = (text: string, pairs: ReadonlyArray<[string, string]>) =>
  pairs.reduce((out, [token, escaped]) => out.split(escaped).join(token), text);
export const DATA: ReadonlyArray<[string, string]> = [
  ['\r', '%0D'],
  ['\n', '%0A'],
  ['%', '%25'],
];
export const PROPERTY: ReadonlyArray<[string, string]> = [
  ['\r', '%0D'],
  ['\n', '%0A'],
  [':', '%3A'],
  [',', '%2C'],
  ['%', '%25'],
];
const V1: ReadonlyArray<[string, string]> = [
  [';', '%3B'],
  ['\r', '%0D'],
  ['\n', '%0A'],
  [']', '%5D'],
  ['%', '%25'],
];

function properties(
  text: string,
  separator: string,
  pairs: ReadonlyArray<[string, string]>,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const item of text.split(separator).filter(Boolean)) {
    const eq = item.indexOf('=');
    if (eq > 0 && eq < item.length - 1) out[item.slice(0, eq)] = decode(item.slice(eq + 1), pairs);
  }
  return out;
}

interface Finder {
  startsWith(s: string, pattern: string): boolean;
  indexOf(s: string, pattern: string, from: number): number[];
}
const culture: Finder = { startsWith: cultureStartsWith, indexOf: cultureIndexOf };
const ordinal: Finder = {
  startsWith: (s, pattern) => s.startsWith(pattern),
  indexOf: (s, pattern, from) => {
    const at = s.indexOf(pattern, from);
    return at < 0 ? [] : [at];
  },
};

/** TryParseV2: "::" after leading white space, the name up to a space, k=v properties, "::", the data. */
function parseV2(line: string, registered: Set<string>, find: Finder): FoundCommand | undefined {
  const message = line.replace(DOTNET_WHITE_SPACE, '');
  if (!find.startsWith(message, '::')) return undefined;
  for (const end of find.indexOf(message, '::', 2)) {
    const info = message.slice(2, end);
    const space = info.indexOf(' ');
    const command = space < 0 ? info : info.slice(0, space);
    if (!registered.has(command.toLowerCase())) continue;
    const props = space > 0 ? properties(info.slice(space + 1).trim(), ',', PROPERTY) : {};
    return { command, properties: props, data: decode(message.slice(end + 2), DATA), syntax: 'v2', line };
  }
  return undefined;
}

/** TryParse: "##[" anywhere, the name up to a space or "]", k=v;… properties, "]", the data. */
function parseV1(line: string, registered: Set<string>, find: Finder): FoundCommand | undefined {
  for (const prefix of find.indexOf(line, '##[', 0)) {
    const close = line.indexOf(']', prefix);
    // .NET's Substring throws on a negative length, and TryParse answers false.
    if (close < prefix + 3) continue;
    const info = line.slice(prefix + 3, close);
    const space = info.indexOf(' ');
    const command = space < 0 ? info : info.slice(0, space);
    if (!registered.has(command.toLowerCase())) continue;
    const props = space > 0 ? properties(info.slice(space + 1), ';', V1) : {};
    return { command, properties: props, data: decode(line.slice(close + 1), V1), syntax: 'v1', line };
  }
  return undefined;
}

/** Every workflow command a runner could take from `text`, one stream's output, in order. */
export function runnerCommands(text: string, options: { strict?: boolean } = {}): FoundCommand[] {
  const registered = new Set(REGISTERED);
  const found: FoundCommand[] = [];
  for (const line of text.split(/\r\n|\r|\n/)) {
    const ways: Array<[string, Finder]> = [[line, culture]];
    if (options.strict) ways.push([line, ordinal], [line.replace(NO_WEIGHT_ALL, ''), ordinal]);
    let command: FoundCommand | undefined;
    for (const [message, find] of ways) {
      command = parseV2(message, registered, find) ?? parseV1(message, registered, find);
      if (command) break;
    }
    if (!command) continue;
    found.push({ ...command, line });
    // Its token is a command's name until it comes back.
    if (command.command.toLowerCase() === 'stop-commands') registered.add(command.data.toLowerCase());
  }
  return found;
}
