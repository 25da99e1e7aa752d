import type { Usage } from '../../chat/types.js';

/** The --usage line: token counts of a reply, on stderr (chat.run.ts, and each turn in repl.ts). */
export function usageLine(usage: Usage | undefined): string {
  return usage
    ? `usage: ${usage.prompt_tokens} prompt + ${usage.completion_tokens} completion = ${usage.total_tokens} tokens`
    : 'usage: not reported';
}
