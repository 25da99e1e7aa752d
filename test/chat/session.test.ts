// The chat session (src/chat/session.ts) on its own: seeding the conversation (a transcript, -s,
// --message), the system prompt put in one place, the bookkeeping of a turn, /reset's forgetting,
// saving, and moving to another model. Nothing is sent: the Inference API's model list is stubbed.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { ChatSession, type ChatSessionInit, seedMessages } from '../../src/chat/session.js';
import type { Context } from '../../src/context.js';
import { UsageError } from '../../src/errors/errors.js';
import { tempConfigDir } from '../helpers/cli.js';
import { offlineContext } from '../helpers/offline-context.js';

const MODEL = 'openai/gpt-oss-20b';

function context(): Context {
  return offlineContext();
}

function session(init: Partial<ChatSessionInit> = {}): ChatSession {
  return new ChatSession(context(), { model: MODEL, api: 'inference', params: {}, ...init });
}

describe('seeding a conversation', () => {
  it('puts -s first, before the transcript, and each --message after it', () => {
    const history = [
      { role: 'user', content: 'earlier' },
      { role: 'assistant', content: 'reply' },
    ];
    expect(seedMessages(history, 'be brief', ['user:hi', 'assistant:hello: there'])).toEqual([
      { role: 'system', content: 'be brief' },
      ...history,
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: 'hello: there' },
    ]);
  });

  it("replaces the transcript's own system prompt rather than adding a second", () => {
    const history = [
      { role: 'system', content: 'old' },
      { role: 'user', content: 'q' },
    ];
    expect(seedMessages(history, 'new')).toEqual([
      { role: 'system', content: 'new' },
      { role: 'user', content: 'q' },
    ]);
    expect(history[0]).toEqual({ role: 'system', content: 'old' }); // the transcript's array is not changed
  });

  it('refuses a --message without a known role', () => {
    expect(() => seedMessages([], undefined, ['hi'])).toThrow(UsageError);
    expect(() => seedMessages([], undefined, ['robot:hi'])).toThrow(
      '--message robot:hi: expected role:content with a role of system, developer, user, assistant',
    );
  });

  it('is what a new session holds', () => {
    const s = session({ history: [{ role: 'user', content: 'q' }], system: 'sys', seeds: ['assistant:a'] });
    expect(s.messages).toEqual([
      { role: 'system', content: 'sys' },
      { role: 'user', content: 'q' },
      { role: 'assistant', content: 'a' },
    ]);
    expect(s.systemPrompt).toBe('sys');
  });
});

describe('the system prompt of a session', () => {
  it('is none until set, and set twice it is still one message, the first', () => {
    const s = session({ history: [{ role: 'user', content: 'q' }] });
    expect(s.systemPrompt).toBeUndefined();
    s.setSystemPrompt('one');
    s.setSystemPrompt('two');
    expect(s.messages).toEqual([
      { role: 'system', content: 'two' },
      { role: 'user', content: 'q' },
    ]);
    expect(s.systemPrompt).toBe('two');
  });
});

describe('a turn', () => {
  it('asks, then keeps the reply; the request carries the conversation, model and parameters', () => {
    const s = session({ params: { temperature: 0.2 } });
    s.ask('q');
    s.keepReply('a');
    expect(s.request).toEqual({
      model: MODEL,
      api: 'inference',
      messages: [
        { role: 'user', content: 'q' },
        { role: 'assistant', content: 'a' },
      ],
      params: { temperature: 0.2 },
    });
  });

  it('taken back, leaves no question behind, and never takes a kept reply', () => {
    const s = session();
    s.ask('q1');
    s.keepReply('a1');
    s.ask('q2');
    s.takeBack();
    expect(s.messages).toEqual([
      { role: 'user', content: 'q1' },
      { role: 'assistant', content: 'a1' },
    ]);
    s.takeBack();
    expect(s.messages).toHaveLength(2);
  });
});

describe('forgetting and saving', () => {
  it('forget keeps the system prompt only and stops writing the --continue file, which it returns', () => {
    const file = join(tempConfigDir(), 'talk.jsonl');
    const s = session({ system: 'sys', transcript: file });
    s.ask('q');
    s.keepReply('a');
    expect(s.forget()).toBe(file);
    expect(s.messages).toEqual([{ role: 'system', content: 'sys' }]);
    expect(s.transcript).toBeUndefined();
    expect(s.forget()).toBeUndefined();
  });

  it('saves the conversation as JSON Lines', () => {
    const file = join(tempConfigDir(), 'talk.jsonl');
    const s = session({ system: 'sys' });
    s.ask('q');
    s.save(file);
    expect(readFileSync(file, 'utf8')).toBe(
      '{"role":"system","content":"sys"}\n{"role":"user","content":"q"}\n',
    );
  });
});

describe('changing the model', () => {
  it('moves to an Inference API model it lists, asking for the list once', async () => {
    const s = session();
    const list = vi.spyOn(s, 'inferenceModelIds').mockResolvedValue(new Set([MODEL, 'other/model']));
    await s.changeModel('other/model');
    expect([s.model, s.api]).toEqual(['other/model', 'inference']);
    await s.changeModel(MODEL);
    expect(list).toHaveBeenCalledTimes(1);
  });

  it('refuses a model the Inference API does not list, and stays where it was', async () => {
    const s = session();
    vi.spyOn(s, 'inferenceModelIds').mockResolvedValue(new Set([MODEL]));
    await expect(s.changeModel('no/such')).rejects.toThrow(
      'no/such is not a model of the Inference API (aip models list shows them)',
    );
    expect([s.model, s.api]).toEqual([MODEL, 'inference']);
  });

  it('moves to a trained checkpoint on the Training API without asking, and keeps --api', async () => {
    const artifact = 'wandb-artifact:///team/project/agent:step5';
    const s = session();
    const list = vi.spyOn(s, 'inferenceModelIds');
    await s.changeModel(artifact);
    expect([s.model, s.api]).toEqual([artifact, 'training']);
    const pinned = session({ apiFlag: 'inference' });
    await pinned.changeModel(artifact);
    expect([pinned.model, pinned.api]).toEqual([artifact, 'inference']);
    expect(list).not.toHaveBeenCalled();
  });
});
