export type ChatApi = 'inference' | 'training';

/** A chat message as the OpenAI API takes it (role and content, and whatever else it carries). */
export interface ChatMessage {
  role: string;
  content?: unknown;
  [key: string]: unknown;
}

export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}
