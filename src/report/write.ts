// Writing a report to the file --report names: its format from the name's extension (.html/.htm, or
// .md/.markdown), the file replaced atomically (fs/atomic-write.ts): a reader, a CI step that uploads
// it, sees the old report or the new one, never part of one. The renderers are loaded here, when a
// report is asked for.

import { extname } from 'node:path';
import { UsageError } from '../errors/errors.js';
import { writeFileAtomic } from '../fs/atomic-write.js';
import { writeError } from '../fs/write-error.js';
import type { ReportData } from './model.js';

export type ReportFormat = 'html' | 'markdown';

/** The format a file name asks for; a UsageError (exit 2) for any other extension. */
export function reportFormat(file: string, flag = '--report'): ReportFormat {
  const ext = extname(file).toLowerCase();
  if (ext === '.html' || ext === '.htm') return 'html';
  if (ext === '.md' || ext === '.markdown') return 'markdown';
  throw new UsageError(
    `${flag} ${file}: the file's name says its format: end it in .html (a self-contained page) or .md (Markdown for a pull request or a step summary)`,
  );
}

export async function renderReport(data: ReportData, format: ReportFormat): Promise<string> {
  if (format === 'html') return (await import('./html.js')).renderHtml(data);
  return (await import('./markdown.js')).renderMarkdown(data);
}

/** Renders `data` in the format `file`'s name asks for and writes it there, atomically. */
export async function writeReport(file: string, data: ReportData): Promise<ReportFormat> {
  const format = reportFormat(file);
  const text = await renderReport(data, format);
  try {
    writeFileAtomic(file, text, { followSymlinks: true });
  } catch (error) {
    throw writeError(file, error, { exit: 'error', outcome: 'the report was not written' });
  }
  return format;
}
