// The chat REPL on a real pseudo-terminal: a streamed reply, history across turns, /reset, /save,
// Ctrl-C during a reply (the REPL stays), Ctrl-D (it leaves, exit 0).

import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RequestRecord } from '../../src/emulator/index.js';
import { tempConfigDir } from '../helpers/cli.js';
import { useEmulator } from '../helpers/emulator.js';
import { hasScript, startTerminal, type Terminal } from '../helpers/pty.js';
import { waitFor } from '../helpers/wait.js';

const MODEL = 'openai/gpt-oss-20b';
const PATH = '/inference/v1/chat/completions';

const { emu } = useEmulator({ fresh: 'file' });

/**
 * The pace of a streamed reply whose middle a test types into (Ctrl-C, Ctrl-D, the next line): a key
 * sent once the reply has begun must come before it ends, and on a busy machine the way from the screen
 * to aip (this test, script, the terminal) can take a second or more. A reply has 12 words or more.
 */
const TOKEN_MS = 250;

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

      // Ctrl-C during a reply stops it; the REPL stays, the part shown stays on the screen, and the
      // conversation takes the stopped exchange back (it holds whole turns only).
      await ask(term, '/reset', '(conversation forgotten)');
      await emu.control('POST', '/chat', { token_ms: TOKEN_MS });
      const long = { role: 'user', content: 'a long story' };
      const longReply = await replyTo([long]);
      const from = term.screen().length;
      term.type('a long story\r');
      await term.waitFor(/You asked about "a long story"\. \w+/, from);
      term.type('\u0003');
      await term.waitFor('(stopped: this reply is not kept in the conversation)', from);
      await term.waitFor(/\n> $/, from);
      await emu.control('POST', '/chat', { token_ms: 0 });
      const shown = /(You asked about "a long story"\.[^\n]*)\n\(stopped/.exec(
        term.screen().slice(from),
      )?.[1];
      expect(shown).toBeDefined();
      expect(shown!.length).toBeLessThan(longReply.length);
      expect(longReply.startsWith(shown!)).toBe(true);
      const after = { role: 'user', content: 'go on' };
      await ask(term, 'go on', `${await replyTo([after])}\n`);
      expect((await chats()).at(-1)!.messages).toEqual([after]);

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
      await ask(term, '/model no-such/model', 'error: no-such/model is not a model of the Inference API');
      await ask(term, '/model', `${MODEL} (inference API)`);
      await ask(
        term,
        '/model meta-llama/Llama-3.1-8B-Instruct',
        '(now meta-llama/Llama-3.1-8B-Instruct on the inference API)',
      );
      await ask(term, '/nonsense', 'unknown command /nonsense: /help lists them');
      term.type('/exit\r');
      expect(await term.exited).toBe(0);
    } finally {
      term.kill();
    }
  });

  it('keeps lines typed during a reply for their turn, and Ctrl-D during a reply stops it and leaves', async () => {
    await emu.reset();
    await emu.control('POST', '/chat', { token_ms: TOKEN_MS });
    const term = startTerminal(['chat', '-m', MODEL], {
      ...emu.env,
      AIP_CONFIG_DIR: tempConfigDir(),
      NO_COLOR: '1',
    });
    try {
      await term.waitFor(/> $/);
      term.type('q1\r');
      await term.waitFor('You asked about "q1".');
      term.type('q2\r');
      // The reply to q1 ends, then q2 is shown at its prompt and sent with the first exchange.
      await term.waitFor(/\n> q2\nYou asked about "q2"\. \w+/);
      const sent = await chats();
      expect(sent).toHaveLength(2);
      expect(sent[1]!.messages.map((m) => m.content.slice(0, 20))).toEqual([
        'q1',
        expect.stringMatching(/^You asked about "q1"/),
        'q2',
      ]);
      term.type('\u0004');
      expect(await term.exited).toBe(0);
      expect(term.screen()).toMatch(/You asked about "q2"\.[^\n]*\n\(stopped: this reply is not kept/);
      expect(await chats()).toHaveLength(2);
      // What was typed during the reply was not echoed into it.
      expect(term.screen()).toContain(`${await replyTo([{ role: 'user', content: 'q1' }])}\n`);
    } finally {
      term.kill();
      await emu.control('POST', '/chat', { token_ms: 0 });
    }
  });

  it('a reply stopped before any text takes its question back; """ sends several lines as one message', async () => {
    await emu.reset();
    const term = startTerminal(['chat', '-m', MODEL, '--usage'], {
      ...emu.env,
      AIP_CONFIG_DIR: tempConfigDir(),
      NO_COLOR: '1',
    });
    try {
      await term.waitFor(/> $/);
      await emu.fault({ path: PATH, delay_ms: 5000, times: 1 });
      const from = term.screen().length;
      term.type('slow question\r');
      await waitFor(async () => (await chats()).length === 1);
      term.type('\u0003');
      await term.waitFor('(stopped)', from);
      await term.waitFor(/\n> $/, from);
      term.type('"""\r');
      term.type('def f():\r');
      term.type('    return 1\r');
      const code = { role: 'user', content: 'def f():\n    return 1' };
      await ask(term, '"""', `${await replyTo([code])}\n`);
      // --usage: the counts of each turn, on the terminal (stderr).
      expect(term.screen()).toMatch(/usage: \d+ prompt \+ \d+ completion = \d+ tokens/);
      expect((await chats()).at(-1)!.messages).toEqual([code]);
      term.type('\u0004');
      expect(await term.exited).toBe(0);
    } finally {
      term.kill();
    }
  });

  it('/reset with --continue leaves the file as it was and stops writing it', async () => {
    await emu.reset();
    const dir = tempConfigDir();
    const file = join(dir, 'notes.jsonl');
    const earlier = '{"role":"user","content":"hi"}\n{"role":"assistant","content":"hello"}\n';
    writeFileSync(file, earlier);
    const term = startTerminal(['chat', '-m', MODEL, '--continue', file], {
      ...emu.env,
      AIP_CONFIG_DIR: dir,
      NO_COLOR: '1',
    });
    try {
      await term.waitFor('(2 messages so far)');
      const more = { role: 'user', content: 'more' };
      const history = [{ role: 'user', content: 'hi' }, { role: 'assistant', content: 'hello' }, more];
      const reply = await replyTo(history);
      await ask(term, 'more', `${reply}\n`);
      const kept = `${earlier}${JSON.stringify(more)}\n${JSON.stringify({ role: 'assistant', content: reply })}\n`;
      expect(readFileSync(file, 'utf8')).toBe(kept);
      await ask(
        term,
        '/reset',
        `(conversation forgotten; ${file} keeps the earlier one and is no longer written`,
      );
      await ask(term, 'fresh start', `${await replyTo([{ role: 'user', content: 'fresh start' }])}\n`);
      expect(readFileSync(file, 'utf8')).toBe(kept);
      term.type('/exit\r');
      expect(await term.exited).toBe(0);
    } finally {
      term.kill();
    }
  });

  it('--continue: a reply stopped with Ctrl-C is not written to the transcript, as a whole turn or at all', async () => {
    await emu.reset();
    const dir = tempConfigDir();
    const file = join(dir, 'notes.jsonl');
    const earlier = '{"role":"user","content":"hi"}\n{"role":"assistant","content":"hello"}\n';
    writeFileSync(file, earlier);
    const term = startTerminal(['chat', '-m', MODEL, '--continue', file], {
      ...emu.env,
      AIP_CONFIG_DIR: dir,
      NO_COLOR: '1',
    });
    try {
      await term.waitFor('(2 messages so far)');
      await emu.control('POST', '/chat', { token_ms: TOKEN_MS });
      const from = term.screen().length;
      term.type('a long story\r');
      await term.waitFor(/You asked about "a long story"\. \w+/, from);
      term.type('\u0003');
      await term.waitFor('(stopped: this reply is not kept in the conversation)', from);
      await term.waitFor(/\n> $/, from);
      await emu.control('POST', '/chat', { token_ms: 0 });
      expect(readFileSync(file, 'utf8')).toBe(earlier);
      // The next turn is sent, and saved, without it.
      const history = [
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: 'hello' },
      ];
      const next = { role: 'user', content: 'something else' };
      const reply = await replyTo([...history, next]);
      await ask(term, 'something else', `${reply}\n`);
      expect((await chats()).at(-1)!.messages).toEqual([...history, next]);
      expect(readFileSync(file, 'utf8')).toBe(
        `${earlier}${JSON.stringify(next)}\n${JSON.stringify({ role: 'assistant', content: reply })}\n`,
      );
      term.type('/exit\r');
      expect(await term.exited).toBe(0);
    } finally {
      term.kill();
      await emu.control('POST', '/chat', { token_ms: 0 });
    }
  });

  it('SIGTERM during a reply stops it and leaves with exit 143', async () => {
    await emu.reset();
    await emu.control('POST', '/chat', { token_ms: TOKEN_MS });
    const term = startTerminal(['chat', '-m', MODEL], {
      ...emu.env,
      AIP_CONFIG_DIR: tempConfigDir(),
      NO_COLOR: '1',
    });
    try {
      await term.waitFor(/> $/);
      term.type('a long story\r');
      await term.waitFor(/You asked about "a long story"\. \w+/);
      term.signal('SIGTERM');
      expect(await term.exited).toBe(143);
      expect(term.screen()).toMatch(
        /\(stopped: this reply is not kept in the conversation\)\n[\s\S]*error: terminated\n$/,
      );
      expect(await chats()).toHaveLength(1);
    } finally {
      term.kill();
      await emu.control('POST', '/chat', { token_ms: 0 });
    }
  });
});
