// Text from outside (server answers, files being checked, span attributes, model replies) must never
// drive the terminal: an escape sequence in a checkpoint id could clear the screen, retitle the window,
// recolour what follows or, through OSC 52, write the user's clipboard. Every character that a
// terminal would act on is shown instead, in the notation of `cat -v` (gh does the same): ESC as ^[,
// BEL as ^G, DEL as ^?, the C1 controls as M-^[ and so on; the characters that reorder text (bidi
// overrides and isolates) as <U+202E>. Tabs and line breaks stay; a carriage return stays only as
// the first half of a CRLF, since alone it lets text overwrite the line.
//
// aip's own styling (colours, the progress line's redraw) is the one exception, and it must be asked
// for: `Trust` marks the control characters aip itself put in, with a marker no outside text can
// forge (random per process), and `render` lets exactly those through. So the IO can render every
// write, and no command can forget to.

const CONTROL =
  /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]|\r(?!\n)/g;

/** One character as `cat -v` shows it (and bidi controls as <U+XXXX>). */
function visible(ch: string): string {
  const code = ch.charCodeAt(0);
  if (code < 0x20) return `^${String.fromCharCode(code + 0x40)}`;
  if (code === 0x7f) return '^?';
  if (code < 0xa0) return `M-${visible(String.fromCharCode(code - 0x80))}`;
  return `<U+${code.toString(16).toUpperCase().padStart(4, '0')}>`;
}

/** Outside text made harmless for a terminal: nothing in it is interpreted. */
export function sanitize(text: string): string {
  return text.replace(CONTROL, visible);
}

/** Control characters as a regex class source, for marking aip's own. */
const RAW_CONTROL = '[\\u0000-\\u0008\\u000b-\\u001f\\u007f-\\u009f]';

export class Trust {
  /**
   * Private-use characters around random ones: never in a server's text by chance, nor by design (the
   * mark is never written out, so nothing can learn it; Math.random spares start-up loading crypto).
   */
  private readonly mark = `\uE000${Array.from({ length: 6 }, () =>
    String.fromCharCode(0xe100 + Math.floor(Math.random() * 256)),
  ).join('')}\uE001`;
  private readonly unmarked = new RegExp(`(?<!${this.mark})${RAW_CONTROL}`, 'g');

  /** aip's own control characters in `text` marked to be written as they are. */
  trust(text: string): string {
    return text.replace(this.unmarked, (ch) => `${this.mark}${ch}`);
  }

  /**
   * Outside text shown harmlessly, marks kept: for styling text that may hold both (a styled cell of
   * server data inside a styled line), before it is styled again.
   */
  neutralize(text: string): string {
    return this.sanitizeAround(text, true);
  }

  /** What reaches the stream: trusted characters as they are, everything else sanitised. */
  render(text: string): string {
    return this.sanitizeAround(text, false);
  }

  private sanitizeAround(text: string, keepMarks: boolean): string {
    if (!text.includes(this.mark)) return sanitize(text);
    const pieces = text.split(this.mark);
    let out = sanitize(pieces[0]!);
    for (const piece of pieces.slice(1)) {
      // Each piece after a mark starts with the one character the mark vouches for.
      out += (keepMarks ? this.mark : '') + piece.charAt(0) + sanitize(piece.slice(1));
    }
    return out;
  }
}
