// On a GitHub Actions runner every line a step writes, on stdout and on stderr, is read for workflow
// commands, so text from outside (a job's error, a model's reply, a file's name) must never read as
// one: "\n::warning::…\n::stop-commands::x" would add an annotation and then silence every later
// command of the step, aip's own ::error included. What the runner takes, from its source
// (actions/runner):
// - lines: src/Runner.Sdk/ProcessInvoker.cs reads each stream with StreamReader.ReadLine, so a line
//   ends at "\n", "\r\n" or a lone "\r";
// - src/Runner.Worker/Handlers/OutputManager.cs hands every line to ActionCommandManager
//   .TryProcessCommand, which tries src/Runner.Common/ActionCommand.cs TryParseV2, then TryParse:
//   - TryParseV2: `message.TrimStart()` (char.IsWhiteSpace) then `StartsWith("::")`;
//   - TryParse, the older syntax: `IndexOf("##[")` anywhere in the line, then a command's name
//     (case-insensitive) and "]": `hello ##[warning]x` is a warning;
//   both comparisons culture-sensitive (ICU), under which characters without collation weight (format
//   characters such as U+200B or U+FEFF, default-ignorables, controls) are passed over.
//
// The rule here, applied to what aip writes after the terminal sanitiser (output/sanitize.ts) and the
// masking of keys, decided one character at a time from what came before it only, so that a line
// split over many writes (a streamed reply) comes out exactly as if written whole:
// - at a line's start, after white space: a ":" stays, and a second ":" right after it is shown as
//   <U+003A>; an invisible character is shown as <U+XXXX>, as the sanitiser shows bidi controls;
// - anywhere: a "[" right after "##" is shown as <U+005B>, and an invisible character right after a
//   "#" is shown.
// So "::warning::x" comes out as ":<U+003A>warning::x", "a ##[error]x" as "a ##<U+005B>error]x" and
// "\u200B::x" as "<U+200B>::x": the runner acts on none, and the log shows what came. The controls
// still in the text are aip's own (the sanitiser showed all others): they pass, and the "[" of an
// escape sequence after one is not a command's.
//
// JSON is never changed here: io.ts's exactJson escapes the same characters inside strings, as JSON
// escapes (the value unchanged), so that a JSON line holds none of this. Loaded only on a runner
// (main.ts, as the run starts) or with --ci github (start.ts), like the rest of src/ci/.

import { fstatSync } from 'node:fs';
import type { IO } from '../output/io.js';

/** Characters the runner's comparisons pass over: controls, format characters, default-ignorables. */
const INVISIBLE = /^[\p{Cc}\p{Cf}\p{Default_Ignorable_Code_Point}]$/u;

/** .NET's char.IsWhiteSpace beyond ASCII: what TrimStart removes (U+FEFF is not among them). */
const WIDE_WHITE_SPACE = new Set([
  0x85, 0xa0, 0x1680, 0x2000, 0x2001, 0x2002, 0x2003, 0x2004, 0x2005, 0x2006, 0x2007, 0x2008, 0x2009, 0x200a,
  0x2028, 0x2029, 0x202f, 0x205f, 0x3000,
]);

/** Inside a line, after anything but "#": the characters that change nothing. */
const PLAIN = /[^\n\r#]+/y;

const LF = 0x0a;
const CR = 0x0d;

type Kind = 'break' | 'space' | 'control' | 'invisible' | 'other';

function kindOf(code: number, ch: string): Kind {
  if (code === LF || code === CR) return 'break';
  if (code < 0x80) {
    if (code === 0x20 || (code >= 0x09 && code <= 0x0c)) return 'space';
    return code < 0x20 || code === 0x7f ? 'control' : 'other';
  }
  if (WIDE_WHITE_SPACE.has(code)) return 'space';
  if (code <= 0x9f) return 'control';
  return INVISIBLE.test(ch) ? 'invisible' : 'other';
}

/** One character as the sanitiser shows the ones it will not write: <U+200B>, <U+E0041>. */
function shown(code: number): string {
  return `<U+${code.toString(16).toUpperCase().padStart(4, '0')}>`;
}

/** Where the current line of one stream stands, as far as the runner's parsing goes. */
type Phase =
  /** Only white space since the line began. */
  | 'lead'
  /** White space and one ":": a second ":" would start a command. */
  | 'colon'
  /** Anything else: only "##[" can make this line a command. */
  | 'middle';

/** The rule above for one stream (stdout or stderr): it keeps where the stream's line stands. */
export class RunnerLines {
  private phase: Phase = 'lead';
  /** How many "#" came just before (2 is enough to count). */
  private hashes = 0;
  /** Nothing written since the last line break. */
  private fresh = true;

  /** `text` as it may reach the runner. Unchanged when nothing in it could read as a command. */
  guard(text: string): string {
    let out = '';
    let from = 0;
    const replace = (at: number, width: number, by: string) => {
      out += text.slice(from, at) + by;
      from = at + width;
    };
    for (let i = 0; i < text.length; i++) {
      if (this.phase === 'middle' && this.hashes === 0) {
        // Most of a line: until a line break or a "#", nothing can start a command.
        PLAIN.lastIndex = i;
        if (PLAIN.test(text)) {
          i = PLAIN.lastIndex - 1;
          this.fresh = false;
          continue;
        }
      }
      const code = text.codePointAt(i)!;
      const width = code > 0xffff ? 2 : 1;
      const kind = kindOf(code, width === 2 ? text.slice(i, i + 2) : text[i]!);
      this.fresh = kind === 'break';
      if (kind === 'break') {
        this.phase = 'lead';
        this.hashes = 0;
      } else if (kind === 'space') {
        if (this.phase === 'colon') this.phase = 'middle';
        this.hashes = 0;
      } else if (kind === 'control') {
        // aip's own (the sanitiser showed all others), as it is: passed over by the runner, so the
        // line's start is where it was; what follows it is its escape sequence ("\u001b[31m"), whose
        // "[" after a "##" of outside text gives the runner no command's name.
        this.hashes = 0;
      } else if (kind === 'invisible') {
        if (this.phase !== 'middle' || this.hashes > 0) replace(i, width, shown(code));
        this.phase = 'middle';
        this.hashes = 0;
      } else if (code === 0x3a && this.phase !== 'middle') {
        if (this.phase === 'colon') replace(i, 1, shown(code));
        this.phase = this.phase === 'lead' ? 'colon' : 'middle';
        this.hashes = 0;
      } else {
        this.phase = 'middle';
        if (code === 0x5b && this.hashes >= 2) replace(i, 1, shown(code));
        this.hashes = code === 0x23 ? this.hashes + 1 : 0;
      }
      i += width - 1;
    }
    return from === 0 ? text : out + text.slice(from);
  }

  /** Whether the stream is at the start of a line: aip's own workflow command may be written. */
  get atLineStart(): boolean {
    return this.fresh;
  }

  /** Text written past the guard (aip's own command line, a key, bytes): the stream's line is new. */
  restart(): void {
    this.phase = 'lead';
    this.hashes = 0;
    this.fresh = true;
  }
}

/** Whether `fd` is a regular file (`aip … > out.json`), not a pipe, a terminal or /dev/null. */
function isRegularFile(fd: number): boolean {
  try {
    return fstatSync(fd).isFile();
  } catch {
    return false;
  }
}

/**
 * Guards `io`'s stdout and stderr from now on, but for a stream that goes to a regular file (the
 * runner reads a step's streams through pipes: a file never reaches it, and stays exact).
 */
export function guardRunnerLines(io: IO): void {
  io.guardLines((fd) => (fd !== undefined && isRegularFile(fd) ? undefined : new RunnerLines()));
}
