// Progress on stderr. On a terminal outside CI: one status line, redrawn in place, with permanent
// lines printed above it. Elsewhere (CI, pipes): no status line, just one plain line per change.

import type { IO } from './io.js';

export interface Progress {
  /**
   * Replaces the status line (terminal only). Text given as a function is made only when it is shown,
   * at most every REDRAW_MS: a reader that reports after every piece of its input pays nothing for it
   * where there is no terminal, and little where there is.
   */
  status(text: string | (() => string)): void;
  /** A line that stays: above the status line on a terminal, a plain line elsewhere. */
  line(text: string): void;
  /** A warning that stays, as `line`, but never silenced by --quiet (io.warn's). */
  warn(text: string): void;
  /** Clears the status line. */
  done(): void;
}

const CLEAR = '\r\u001b[2K';
/** A status line redrawn more often than this is a blur: what comes in between is let go. */
const REDRAW_MS = 50;

export function progress(io: IO): Progress {
  if (!io.spinnersEnabled) {
    return { status() {}, line: (text) => io.info(text), warn: (text) => io.warn(text), done() {} };
  }
  let current = '';
  let drawn = Number.NEGATIVE_INFINITY;
  // The redraw is aip's own: written as it is, where the text's own controls would be shown.
  const clear = io.control(CLEAR);
  return {
    status(text) {
      if (typeof text === 'function') {
        const now = performance.now();
        if (now - drawn < REDRAW_MS) return;
        drawn = now;
        text = text();
      }
      current = fitLine(text, io.stderrColumns);
      io.errWrite(`${clear}${current}`);
    },
    line(text) {
      io.errWrite(`${clear}${text}\n${current}`);
    },
    warn(text) {
      io.errWrite(clear);
      io.warn(text);
      io.errWrite(current);
    },
    done() {
      if (current) io.errWrite(clear);
      current = '';
    },
  };
}

/**
 * The text cut to fit one terminal line: wider, a redrawn status line would wrap, and the clear that
 * redraws it erases only its last row (the rows above stay on the screen, one per redraw).
 */
export function fitLine(text: string, columns: number): string {
  const chars = Array.from(text);
  return chars.length < columns ? text : `${chars.slice(0, Math.max(1, columns - 2)).join('')}…`;
}

/** "█████░░░░░" for done of total. */
export function bar(done: number, total: number, width = 20): string {
  const filled = total > 0 ? Math.min(width, Math.round((done / total) * width)) : 0;
  return `${'█'.repeat(filled)}${'░'.repeat(width - filled)}`;
}
