// `aip chat`: its arguments, flags, help and examples; the code that runs is chat.run.ts (and, for a
// conversation, repl.ts).

import { Argument, InvalidArgumentError, Option } from '@commander-js/extra-typings';
import type { Context } from '../../context.js';
import { content } from '../content.js';
import { examples } from '../examples.js';
import { collect, parseNumber } from '../parsers.js';
import type { OptionsOf, Parent } from '../types.js';
import { valueKind } from '../value-kinds.js';

function parseMaxTokens(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) < 1)
    throw new InvalidArgumentError('expected a whole number, 1 or more');
  return Number(value);
}

function define(program: Parent) {
  const chat = program
    .command('chat')
    .description(
      'chat with a model (the openai SDK, on the Inference or Training API); no prompt on a terminal opens a conversation',
    )
    .addArgument(content(new Argument('[prompt...]', 'the prompt (joined with stdin when both are given)')))
    .addOption(
      valueKind(
        'chat-model',
        new Option(
          '-m, --model <model>',
          'model id, wandb-artifact:///team/project/name[:stepN], or name[:stepN|:best[METRIC]|:latest] of a model created here (default: the default-model setting)',
        ),
      ),
    )
    .addOption(content(new Option('-s, --system <text>', 'system prompt')))
    .addOption(
      content(
        new Option(
          '--message <role:content>',
          'a message before the prompt, e.g. user:hi or assistant:hello (repeatable)',
        ).argParser(collect),
      ),
    )
    .option('--temperature <x>', 'sampling temperature', parseNumber('--temperature'))
    .option('--max-tokens <n>', 'most tokens to generate', parseMaxTokens)
    .option(
      '-o, --option <key=value>',
      'any other request parameter, value as JSON when it parses (repeatable)',
      collect,
    )
    .addOption(
      new Option(
        '--api <api>',
        'which API serves the model (default: training for trained checkpoints, else inference)',
      ).choices(['inference', 'training']),
    )
    .option('--stream', 'stream the reply (the default when stdout is a terminal)')
    .option('--no-stream', 'wait for the whole reply')
    .option('--usage', 'print token counts on stderr')
    .option(
      '--trace',
      'record each exchange as OpenTelemetry spans (chat <model>, GenAI attributes; in a conversation, or with an agent, under an invoke_agent span per turn) and send them to trace ingest',
    )
    .option(
      '--agent <name>',
      "with --trace: the agent's name (gen_ai.agent.name; default: a trained model's name)",
    )
    .addOption(
      valueKind(
        'file',
        new Option(
          '--continue <file>',
          'a JSON Lines transcript: its messages come first, and it is rewritten with the conversation after each reply',
        ),
      ),
    );
  return examples(chat, [
    'aip chat -m openai/gpt-oss-20b "Write a haiku about gradients"',
    'git diff | aip chat -m openai/gpt-oss-20b "Review this change"',
    'aip chat -m agent-001:step5 "Hello"               # a trained checkpoint, on the Training API',
    'aip chat -m openai/gpt-oss-20b --json "hi" | jq .usage',
    'aip chat -m openai/gpt-oss-20b                   # a conversation (on a terminal)',
    'aip chat -m openai/gpt-oss-20b --continue notes.jsonl "and then?"',
    'aip chat -m openai/gpt-oss-20b --trace --agent support-bot "Where is my order?"',
  ]);
}

export type ChatOptions = OptionsOf<typeof define>;

export function registerChat(program: Parent, ctx: Context): void {
  define(program).action(async (prompt, options) => {
    const { runChat } = await import('./chat.run.js');
    await runChat(ctx, prompt, options);
  });
}
