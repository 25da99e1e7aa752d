// The REPL's slash commands (/system, /model, …): one entry each, with its line of /help and what it
// does to the session. A handler returns what it has to say (the REPL prints it on stderr) rather than
// printing, so that the table can be tested without a terminal.

import type { ChatSession } from '../../chat/session.js';
import { plural } from '../../output/plural.js';

export interface SlashResult {
  /** Lines for stderr. */
  notes: string[];
  /** The conversation ends (/exit). */
  leave?: boolean;
}

export interface SlashCommand {
  /** Its line in /help (usage, then what it does); none for what /help does not list. */
  help?: readonly [usage: string, does: string];
  run(session: ChatSession, argument: string): SlashResult | Promise<SlashResult>;
}

/** What a transcript that cannot be written means in the REPL: nothing is lost yet. */
export const KEPT = 'the conversation is still here: /save OTHER-FILE writes it elsewhere';

/** /help's last line: not a command, but the REPL's other piece of syntax. */
const FENCE_HELP = ['"""', 'on a line of its own: start, and end, a message of several lines'] as const;

const say = (...notes: string[]): SlashResult => ({ notes });
const leave: SlashCommand['run'] = () => ({ notes: [], leave: true });

export const SLASH_COMMANDS: ReadonlyMap<string, SlashCommand> = new Map<string, SlashCommand>([
  [
    'system',
    {
      help: ['/system [text]', 'show or set the system prompt'],
      run(session, text) {
        if (!text) return say(session.systemPrompt ?? '(no system prompt)');
        session.setSystemPrompt(text);
        return say('(system prompt set)');
      },
    },
  ],
  [
    'model',
    {
      help: ['/model [name]', 'show or change the model'],
      async run(session, ref) {
        if (!ref) return say(`${session.model} (${session.api} API)`);
        await session.changeModel(ref);
        return say(`(now ${session.model} on the ${session.api} API)`);
      },
    },
  ],
  [
    'reset',
    {
      help: ['/reset', 'forget the conversation (the system prompt stays)'],
      run(session) {
        const detached = session.forget();
        return say(
          detached
            ? `(conversation forgotten; ${detached} keeps the earlier one and is no longer written: /save FILE writes this one)`
            : '(conversation forgotten)',
        );
      },
    },
  ],
  [
    'save',
    {
      help: ['/save <file>', 'write the conversation as JSON Lines'],
      run(session, name) {
        const file = name || session.transcript;
        if (!file) return say('/save needs a file name');
        session.save(file, KEPT);
        return say(`(saved ${plural(session.messages.length, 'message')} to ${file})`);
      },
    },
  ],
  ['exit', { help: ['/exit', 'leave (or Ctrl-D)'], run: leave }],
  ['quit', { run: leave }],
  ['help', { run: () => say(...helpLines()) }],
]);

/** /help: each listed command, and the """ fence, in two columns. */
export function helpLines(): string[] {
  const listed = [...SLASH_COMMANDS.values()].flatMap((command) => (command.help ? [command.help] : []));
  return [...listed, FENCE_HELP].map(([usage, does]) => `${usage.padEnd(16)}${does}`);
}

/** Runs a line that starts with /: its first word names the command, the rest is its argument. */
export async function runSlashCommand(session: ChatSession, line: string): Promise<SlashResult> {
  const [name = '', ...rest] = line.slice(1).split(/\s+/);
  const command = SLASH_COMMANDS.get(name);
  if (!command) return say(`unknown command /${name}: /help lists them`);
  return command.run(session, rest.join(' ').trim());
}
