// The documentation `aip mcp` serves as resources, bundled (esbuild's text loader, through the import
// attribute), so an installed aip, which ships no docs/, has them too. Loaded only when a client reads
// one (resources.ts lists them without it; vitest, which has no text loader, never loads it in-process).

import commands from '../../docs/commands.md' with { type: 'text' };
import emulator from '../../docs/emulator.md' with { type: 'text' };
import history from '../../docs/history.md' with { type: 'text' };
import mcp from '../../docs/mcp.md' with { type: 'text' };
import reports from '../../docs/reports.md' with { type: 'text' };
import settings from '../../docs/settings.md' with { type: 'text' };
import tracesRead from '../../docs/traces-read.md' with { type: 'text' };
import usage from '../../docs/usage.md' with { type: 'text' };

/** The docs/*.md files served, by name (resources.ts lists them). */
export const DOC_TEXTS: Record<string, string> = {
  commands,
  settings,
  emulator,
  history,
  usage,
  reports,
  'traces-read': tracesRead,
  mcp,
};

/**
 * The section of a Markdown document under `heading` (the heading's line as written), to the next
 * heading of its level or above, or with `intro` to the next heading of any level. Lines in fenced
 * code are never headings (a shell comment starts with "#" too).
 */
export function section(doc: string, heading: string, options: { intro?: boolean } = {}): string {
  const lines = doc.split('\n');
  const start = lines.indexOf(heading);
  if (start < 0) throw new Error(`no section "${heading}"`);
  const level = heading.match(/^#+/)![0].length;
  let fenced = false;
  let end = lines.length;
  for (let i = start + 1; i < lines.length; i++) {
    const line = lines[i]!;
    if (/^\s*```/.test(line)) fenced = !fenced;
    if (fenced) continue;
    const found = line.match(/^(#+) /);
    if (found && (options.intro || found[1]!.length <= level)) {
      end = i;
      break;
    }
  }
  return `${lines.slice(start, end).join('\n').trim()}\n`;
}

/** The formats an agent writes files in, each a section of the docs (by name, as resources.ts lists them). */
export const FORMAT_TEXTS: Record<string, () => string> = {
  'trajectory-groups': () => section(commands, '### Trajectory-group files'),
  tasks: () => section(commands, '## Rollouts: sampling and scoring from the shell', { intro: true }),
  'json-shapes': () => section(commands, '## JSON shapes'),
  'exit-codes': () => section(settings, '## Exit codes'),
};
