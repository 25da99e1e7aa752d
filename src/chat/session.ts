// A chat session: the conversation `aip chat` sends, whether one prompt (commands/chat/chat.run.ts)
// or a conversation's turns (commands/chat/repl.ts). It holds the messages (seeded from a --continue
// transcript, -s and --message), the model and the API they go to, the request parameters, the
// --continue file and the --trace recorder; the REPL's slash commands act on it. What is printed is
// left to the command layer: a session says nothing.

import type OpenAI from 'openai';
import { listInferenceModels, openaiClient } from '../api/openai.js';
import type { Context } from '../context.js';
import { UsageError } from '../errors/errors.js';
import type { ChatRequest } from './complete.js';
import { type ChatModel, resolveChatModel } from './model.js';
import type { ChatTracer } from './trace.js';
import { saveTranscript } from './transcript.js';
import type { ChatApi, ChatMessage } from './types.js';

const ROLES = ['system', 'developer', 'user', 'assistant'];

/**
 * Sets the system prompt in place: it replaces the first message when that is a system prompt, else
 * comes first. The one place a system prompt is put into a conversation (-s, and /system).
 */
function putSystemPrompt(messages: ChatMessage[], text: string): void {
  if (messages[0]?.role === 'system') messages[0] = { role: 'system', content: text };
  else messages.unshift({ role: 'system', content: text });
}

/** The conversation before the prompt: a transcript, then -s (first), then each --message. */
export function seedMessages(
  history: readonly ChatMessage[],
  system: string | undefined,
  seeds: readonly string[] = [],
): ChatMessage[] {
  const messages = [...history];
  if (system !== undefined) putSystemPrompt(messages, system);
  for (const seed of seeds) {
    const colon = seed.indexOf(':');
    const role = colon > 0 ? seed.slice(0, colon) : '';
    if (!ROLES.includes(role))
      throw new UsageError(`--message ${seed}: expected role:content with a role of ${ROLES.join(', ')}`);
    messages.push({ role, content: seed.slice(colon + 1) });
  }
  return messages;
}

export interface ChatSessionInit extends ChatModel {
  /** --api, kept when the model changes (/model). */
  apiFlag?: ChatApi;
  /** The --continue transcript's messages. */
  history?: readonly ChatMessage[];
  /** -s */
  system?: string;
  /** Each --message, as role:content. */
  seeds?: readonly string[];
  params: Record<string, unknown>;
  /** The --continue file, written after each turn (until forget()). */
  transcript?: string;
  /** --trace: a span per exchange (in a conversation, all with the conversation's id). */
  tracer?: ChatTracer;
}

export class ChatSession {
  model: string;
  api: ChatApi;
  readonly apiFlag: ChatApi | undefined;
  messages: ChatMessage[];
  readonly params: Record<string, unknown>;
  transcript: string | undefined;
  readonly tracer: ChatTracer | undefined;
  /** One openai client per API, made on first use (a conversation may move to the other API). */
  private readonly clients = new Map<ChatApi, OpenAI>();
  /** The Inference API's model ids, asked once, when /model first names one. */
  private inferenceModels: Set<string> | undefined;

  /** Seeds the conversation: a malformed --message is a UsageError here, before anything is sent. */
  constructor(
    private readonly ctx: Context,
    init: ChatSessionInit,
  ) {
    this.model = init.model;
    this.api = init.api;
    this.apiFlag = init.apiFlag;
    this.messages = seedMessages(init.history ?? [], init.system, init.seeds);
    this.params = init.params;
    this.transcript = init.transcript;
    this.tracer = init.tracer;
  }

  /** The request the conversation as it stands makes. */
  get request(): ChatRequest {
    return { model: this.model, api: this.api, messages: this.messages, params: this.params };
  }

  get systemPrompt(): string | undefined {
    const first = this.messages[0];
    return first?.role === 'system' ? String(first.content) : undefined;
  }

  setSystemPrompt(text: string): void {
    putSystemPrompt(this.messages, text);
  }

  /** The user's message, the last of the conversation until the reply is kept or it is taken back. */
  ask(text: string): void {
    this.messages.push({ role: 'user', content: text });
  }

  /** A turn that failed or was stopped leaves no half: its question goes, and can be asked again. */
  takeBack(): void {
    if (this.messages.at(-1)?.role === 'user') this.messages.pop();
  }

  keepReply(content: string): void {
    this.messages.push({ role: 'assistant', content });
  }

  /**
   * Forgets the conversation but its system prompt, and stops writing the --continue file: the file
   * keeps the conversation it holds rather than being overwritten with an empty one. Returns that file.
   */
  forget(): string | undefined {
    this.messages = this.messages.filter((m) => m.role === 'system').slice(0, 1);
    const detached = this.transcript;
    this.transcript = undefined;
    return detached;
  }

  /** Writes the conversation as JSON Lines; `outcome` says what a failed write means to the user. */
  save(file: string, outcome?: string): void {
    saveTranscript(file, this.messages, outcome);
  }

  /** Starts --trace's spans of one exchange; the returned function ends and sends them. */
  startSpan(): ReturnType<ChatTracer['start']> | undefined {
    return this.tracer?.start({ model: this.model, api: this.api, params: this.params });
  }

  /** Moves the conversation to another model (and the API that serves it), once it is known to exist. */
  async changeModel(ref: string): Promise<void> {
    const next = resolveChatModel(this.ctx, ref, this.apiFlag);
    await this.checkModel(next);
    this.model = next.model;
    this.api = next.api;
  }

  /** An Inference API model must be one it lists (a trained LoRA, by artifact, need not be). */
  private async checkModel({ model, api }: ChatModel): Promise<void> {
    if (api !== 'inference' || model.startsWith('wandb-artifact:')) return;
    this.inferenceModels ??= await this.inferenceModelIds();
    if (!this.inferenceModels.has(model))
      throw new UsageError(`${model} is not a model of the Inference API (aip models list shows them)`);
  }

  /** The ids of the models the Inference API serves. */
  async inferenceModelIds(): Promise<Set<string>> {
    const models = await listInferenceModels(this.ctx, await this.client('inference'));
    return new Set(models.map((m) => m.id));
  }

  /** The openai client of an API (the session's own, by default), made once. */
  async client(api: ChatApi = this.api): Promise<OpenAI> {
    if (!this.clients.has(api)) this.clients.set(api, await openaiClient(this.ctx, api));
    return this.clients.get(api)!;
  }
}
