// The REPL's slash commands (src/commands/chat/slash-commands.ts) as a table: each name dispatched to
// its own handler, with its argument, over a real chat session; /help's lines as the REPL has always
// printed them. The REPL itself, on a terminal, is test/e2e/repl.test.ts.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { ChatSession, type ChatSessionInit } from '../../src/chat/session.js';
import { helpLines, runSlashCommand, SLASH_COMMANDS } from '../../src/commands/chat/slash-commands.js';
import { tempConfigDir } from '../helpers/cli.js';
import { offlineContext } from '../helpers/offline-context.js';

const MODEL = 'openai/gpt-oss-20b';

function session(init: Partial<ChatSessionInit> = {}): ChatSession {
  const ctx = offlineContext();
  return new ChatSession(ctx, { model: MODEL, api: 'inference', params: {}, ...init });
}

const HELP = [
  '/system [text]  show or set the system prompt',
  '/model [name]   show or change the model',
  '/reset          forget the conversation (the system prompt stays)',
  '/save <file>    write the conversation as JSON Lines',
  '/exit           leave (or Ctrl-D)',
  '"""             on a line of its own: start, and end, a message of several lines',
];

describe('the slash commands', () => {
  it('/help lists the commands, as the REPL always has', async () => {
    expect(helpLines()).toEqual(HELP);
    expect(await runSlashCommand(session(), '/help')).toEqual({ notes: HELP });
  });

  it('/system shows the system prompt, and sets it to the rest of the line', async () => {
    const s = session();
    expect(await runSlashCommand(s, '/system')).toEqual({ notes: ['(no system prompt)'] });
    expect(await runSlashCommand(s, '/system   be   brief ')).toEqual({ notes: ['(system prompt set)'] });
    expect(s.systemPrompt).toBe('be brief');
    expect(await runSlashCommand(s, '/system')).toEqual({ notes: ['be brief'] });
    expect(s.messages).toHaveLength(1);
  });

  it('/model shows the model, and changes it', async () => {
    const s = session();
    vi.spyOn(s, 'inferenceModelIds').mockResolvedValue(new Set([MODEL, 'other/model']));
    expect(await runSlashCommand(s, '/model')).toEqual({ notes: [`${MODEL} (inference API)`] });
    expect(await runSlashCommand(s, '/model other/model')).toEqual({
      notes: ['(now other/model on the inference API)'],
    });
    await expect(runSlashCommand(s, '/model no/such')).rejects.toThrow('no/such is not a model');
  });

  it('/reset forgets the conversation, and says what becomes of the --continue file', async () => {
    const file = join(tempConfigDir(), 'talk.jsonl');
    const s = session({ system: 'sys', transcript: file });
    s.ask('q');
    expect(await runSlashCommand(s, '/reset')).toEqual({
      notes: [
        `(conversation forgotten; ${file} keeps the earlier one and is no longer written: /save FILE writes this one)`,
      ],
    });
    expect(s.messages).toEqual([{ role: 'system', content: 'sys' }]);
    expect(await runSlashCommand(s, '/reset')).toEqual({ notes: ['(conversation forgotten)'] });
  });

  it('/save writes to the file named, else to the --continue file, else asks for one', async () => {
    const dir = tempConfigDir();
    const s = session();
    s.ask('q');
    expect(await runSlashCommand(s, '/save')).toEqual({ notes: ['/save needs a file name'] });
    const named = join(dir, 'named.jsonl');
    expect(await runSlashCommand(s, `/save ${named}`)).toEqual({ notes: [`(saved 1 message to ${named})`] });
    expect(readFileSync(named, 'utf8')).toBe('{"role":"user","content":"q"}\n');
    const kept = join(dir, 'kept.jsonl');
    const continued = session({ transcript: kept });
    expect(await runSlashCommand(continued, '/save')).toEqual({ notes: [`(saved 0 messages to ${kept})`] });
  });

  it('/exit and /quit leave; nothing else does', async () => {
    expect(await runSlashCommand(session(), '/exit')).toEqual({ notes: [], leave: true });
    expect(await runSlashCommand(session(), '/quit')).toEqual({ notes: [], leave: true });
    for (const name of SLASH_COMMANDS.keys()) {
      if (name === 'exit' || name === 'quit') continue;
      expect((await runSlashCommand(session(), `/${name}`)).leave, name).toBeUndefined();
    }
  });

  it('an unknown command, or a name an object has of its own, is said to be unknown', async () => {
    for (const name of ['nope', 'constructor', 'toString', '']) {
      expect(await runSlashCommand(session(), `/${name} x`)).toEqual({
        notes: [`unknown command /${name}: /help lists them`],
      });
    }
  });
});
