// `aip mcp`: its flags, help and examples; the code that runs is mcp.run.ts, which alone loads the MCP
// SDK (src/mcp/): no other command's start-up pays for it.

import type { Context } from '../../context.js';
import type { BuildProgram } from '../../mcp/runner.js';
import { examples } from '../examples.js';
import { parseInterval } from '../parsers.js';
import type { OptionsOf, Parent } from '../types.js';
import { wholeTree } from '../verbs.js';

function define(program: Parent) {
  const mcp = program
    .command('mcp')
    .description(
      'serve the command tree to agents: a Model Context Protocol server over stdio (until stdin closes)',
    )
    .option('--read-only', 'expose only the tools that read (no create, send, sample, delete or forget)')
    .option(
      '--heartbeat <seconds>',
      'while a call runs silent, a progress notification this often (default 15), so that a client timing out quiet requests (60 s in the SDK) keeps a long wait',
      parseInterval,
    )
    .option(
      '--allow-commands',
      'let the agent give reward commands and reward URLs (--reward-cmd, --reward-server, --reward-url): they run as you, with your environment',
    );
  return examples(mcp, [
    'aip mcp                                    # in an MCP client\'s config: {"command": "aip", "args": ["mcp"]}',
    'aip --profile local mcp                    # against the local emulator: practise for free',
    'aip mcp --read-only                        # look, never change',
  ]);
}

export type McpOptions = OptionsOf<typeof define>;

/**
 * `build` is program.ts's buildProgram, handed down: each call runs on a tree of its own, and the tree
 * that holds this verb is not imported by what it loads (src/ has no import cycles).
 */
export function registerMcp(program: Parent, ctx: Context, build: BuildProgram): void {
  define(program).action(async (options) => {
    const { runMcp } = await import('./mcp.run.js');
    await runMcp(ctx, wholeTree(program), options, build);
  });
}
