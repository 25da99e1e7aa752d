// The chat REPL on a real pseudo-terminal: a streamed reply, history across turns, /reset, /save,
// Ctrl-C during a reply (the REPL stays), Ctrl-D (it leaves, exit 0).

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RequestRecord } from '../../src/emulator/recorder.js';
import { tempConfigDir } from '../helpers/cli.js';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { hasScript, startTerminal, type Terminal } from '../helpers/pty.js';

const MODEL = 'openai/gpt-oss-20b';
const PATH = '/inference/v1/chat/completions';

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator();
});
afterAll(() => emu.close());

async function chats(): Promise<
  Array<{ messages: Array<{ role: string; content: string }>; stream?: boolean }>
> {
  const records: RequestRecord[] = await emu.requests({ method: 'POST', path: PATH });
  return records.map(
    (r) => r.body as { messages: Array<{ role: string; content: string }>; stream?: boolean },
  );
}

async function replyTo(messages: unknown[]): Promise<string> {
  const res = await fetch(`${emu.origin}${PATH}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${emu.key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: MODEL, messages }),
  });
  const body = (await res.json()) as { choices: Array<{ message: { content: string } }> };
  return body.choices[0]!.message.content;
}

/** Types a line and waits for the reply that follows it, and for the next prompt. */
async function ask(term: Terminal, line: string, reply: string | RegExp): Promise<void> {
  const from = term.screen().length;
  term.type(`${line}\r`);
  await term.waitFor(reply, from);
  await term.waitFor(/\n> $/, from);
}

describe.runIf(hasScript)('aip chat on a terminal (the REPL)', () => {
  it('streams replies, keeps history, forgets it on /reset, saves it, stops a reply on Ctrl-C, leaves on Ctrl-D', async () => {
    await emu.reset();
    const dir = tempConfigDir();
    const term = startTerminal(['chat', '-m', MODEL], { ...emu.env, AIP_CONFIG_DIR: dir, NO_COLOR: '1' });
    try {
      await term.waitFor(`Chatting with ${MODEL} on the inference API`);
      await term.waitFor(/> $/);

      // A streamed reply.
      const first = { role: 'user', content: 'first question' };
      const firstReply = await replyTo([first]);
      await ask(term, 'first question', `${firstReply}\n`);
      let sent = await chats();
      expect(sent.at(-1)).toMatchObject({ stream: true, messages: [first] });

      // History across two turns: the second request carries the first exchange.
      const second = { role: 'user', content: 'second question' };
      const history = [first, { role: 'assistant', content: firstReply }, second];
      const secondReply = await replyTo(history);
      await ask(term, 'second question', `${secondReply}\n`);
      sent = await chats();
      expect(sent.at(-1)!.messages).toEqual(history);

      // /save writes the conversation as JSON Lines.
      const file = join(dir, 'talk.jsonl');
      await ask(term, `/save ${file}`, `(saved 4 messages to ${file})`);
      expect(
        readFileSync(file, 'utf8')
          .trimEnd()
          .split('\n')
          .map((l) => JSON.parse(l)),
      ).toEqual([...history, { role: 'assistant', content: secondReply }]);

      // /reset forgets: the next request has only the new question.
      await ask(term, '/reset', '(conversation forgotten)');
      const third = { role: 'user', content: 'third question' };
      await ask(term, 'third question', `${await replyTo([third])}\n`);
      sent = await chats();
      expect(sent.at(-1)!.messages).toEqual([third]);

      // Ctrl-C during a reply stops it; the REPL stays, and the part shown is in the history.
      await ask(term, '/reset', '(conversation forgotten)');
      await emu.control('POST', '/chat', { token_ms: 60 });
      const long = { role: 'user', content: 'a long story' };
      const longReply = await replyTo([long]);
      const from = term.screen().length;
      term.type('a long story\r');
      await term.waitFor(/You asked about "a long story"\. \w+/, from);
      term.type('\u0003');
      await term.waitFor('(stopped)', from);
      await term.waitFor(/\n> $/, from);
      await emu.control('POST', '/chat', { token_ms: 0 });
      const shown = /(You asked about "a long story"\.[^\n]*)\n\(stopped\)/.exec(
        term.screen().slice(from),
      )?.[1];
      expect(shown).toBeDefined();
      expect(shown!.length).toBeLessThan(longReply.length);
      expect(longReply.startsWith(shown!)).toBe(true);
      const after = { role: 'user', content: 'go on' };
      await ask(term, 'go on', `${await replyTo([long, { role: 'assistant', content: shown }, after])}\n`);
      expect((await chats()).at(-1)!.messages).toEqual([long, { role: 'assistant', content: shown }, after]);

      // Ctrl-C at the prompt only says how to leave; Ctrl-D leaves with status 0.
      const beforeHint = term.screen().length;
      term.type('\u0003');
      await term.waitFor('(Ctrl-D or /exit to leave)', beforeHint);
      term.type('\u0004');
      expect(await term.exited).toBe(0);
    } finally {
      term.kill();
      await emu.control('POST', '/chat', { token_ms: 0 });
    }
  });

  it('shows an error and stays when a turn fails; /exit leaves', async () => {
    await emu.reset();
    const term = startTerminal(['--max-retries', '0', 'chat', '-m', MODEL], {
      ...emu.env,
      AIP_CONFIG_DIR: tempConfigDir(),
      NO_COLOR: '1',
    });
    try {
      await term.waitFor(/> $/);
      await emu.fault({ path: PATH, status: 429, retry_after: '0', times: 1 });
      await ask(term, 'hello', /error: Concurrency limit reached for requests \(HTTP 429/);
      // The failed question was taken back: asking again sends it once.
      await ask(term, 'hello', `${await replyTo([{ role: 'user', content: 'hello' }])}\n`);
      expect((await chats()).at(-1)!.messages).toEqual([{ role: 'user', content: 'hello' }]);
      // A bad /model is said, and the model stays as it was.
      await ask(term, '/model wandb-artifact://two/slashes', /error: .*three slashes/);
      await ask(term, '/model', `${MODEL} (inference API)`);
      await ask(term, '/nonsense', 'unknown command /nonsense: /help lists them');
      term.type('/exit\r');
      expect(await term.exited).toBe(0);
    } finally {
      term.kill();
    }
  });
});
