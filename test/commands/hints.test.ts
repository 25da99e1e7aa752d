// Every hint aip prints can be pasted into a shell as it stands, and names a command that exists
// (issue 28). Statically: each `aip …` command line written in src/ (hints, messages, examples) and
// each ctx.commandLine([...]) is walked down the command tree, its words a real command path and its
// flags real options of that command; no such line splices a value in unquoted. At run time: a next-page
// hint for a model whose name holds a leading dash, spaces and quotes, and a cursor holding quotes,
// pasted into /bin/sh, gives aip exactly the words meant, and the page after.

import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { commandTree } from '../helpers/cli.js';
import { useEmulator } from '../helpers/emulator.js';

const ROOT = join(import.meta.dirname, '..', '..');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return path.endsWith('.ts') ? [path] : [];
  });
}

/** The code of a line, its comment left out ('//' lines, doc comments, a trailing ' // …'). */
function code(line: string): string {
  const trimmed = line.trim();
  if (trimmed.startsWith('//') || trimmed.startsWith('*') || trimmed.startsWith('/*')) return '';
  return line.replace(/\s\/\/\s.*$/, '');
}

/** Where a command line ends: a pipe, &&, ;, a redirect, a comment, a parenthesis, a quote. */
const COMMAND_LINE = /\baip((?: +[^\s'"`|&;()<>#]+)+)/g;

interface Found {
  where: string;
  words: string[];
}

/** `aip …` in the code of every source file, and the literal words of every ctx.commandLine(…). */
function commandLines(): Found[] {
  const found: Found[] = [];
  for (const file of sourceFiles(join(ROOT, 'src'))) {
    const lines = readFileSync(file, 'utf8').split('\n');
    lines.forEach((line, i) => {
      const where = `${relative(ROOT, file)}:${i + 1}`;
      // fish's `complete -c aip …` names the program, not a command line of it.
      for (const match of code(line).matchAll(COMMAND_LINE))
        if (!code(line).slice(0, match.index).endsWith('-c '))
          found.push({ where, words: match[1]!.trim().split(/ +/) });
    });
    const text = lines.map(code).join('\n');
    for (const call of text.matchAll(/commandLine\(((?:[^()]|\([^()]*\))*)\)/g)) {
      // The words given there: ['jobs', 'wait', id], withArgument(['events'], ref, […]).
      if (!/^\s*(\[|withArgument\()/.test(call[1]!)) continue;
      const literals = [...call[1]!.matchAll(/'([^']*)'/g)].map((m) => m[1]!);
      const line = text.slice(0, call.index).split('\n').length;
      if (literals.length > 0) found.push({ where: `${relative(ROOT, file)}:${line}`, words: literals });
    }
  }
  return found;
}

const takesValue = (command: Command, flag: string) =>
  command.options.find((o) => o.long === flag || o.short === flag)?.required === true ||
  command.options.find((o) => o.long === flag || o.short === flag)?.optional === true;

/** The options a command accepts: its own and those of the commands above it (global options). */
function optionOf(chain: Command[], flag: string): Command | undefined {
  return chain.find((c) => c.options.some((o) => o.long === flag || o.short === flag));
}

/**
 * What is wrong with `aip <words>`, or undefined. Prose ("aip itself", "aip needs") is no command line:
 * only words that start with a command name or an option are checked.
 */
function problem(tree: Command, words: readonly string[]): string | undefined {
  const chain: Command[] = [tree];
  const first = words[0]!;
  if (!first.startsWith('-') && !tree.commands.some((c) => c.name() === first)) return undefined;
  const path = () =>
    chain
      .slice(1)
      .map((c) => c.name())
      .join(' ');
  let walking = true;
  for (let i = 0; i < words.length; i++) {
    const raw = words[i]!;
    // A value spliced into a command line must be quoted for the shell: ctx.commandLine does it.
    if (raw.startsWith('${')) return `"${raw}" splices a value in unquoted: use ctx.commandLine`;
    // `--detach${…? ' (or …)' : ''}`: prose added to the word, not a value in it.
    const word = raw.replace(/\$\{.*$/, '').replace(/[,.]+$/, '');
    // "aip traces exec: …": a command named in prose ends at its colon.
    if (word.endsWith(':')) return undefined;
    if (['--', '', '…', '--help', '-h', '--version', '-V'].includes(word)) return undefined;
    const here = chain.at(-1)!;
    if (word.startsWith('-') && word !== '-') {
      const flag = word.split('=')[0]!;
      // `aip history --since 7d`: the options of a noun's default verb (commander's isDefault).
      const fallback = defaultVerb(here);
      if (!optionOf(chain, flag) && fallback) chain.push(fallback);
      const owner = optionOf(chain, flag);
      if (!owner) return `${flag} is no option of aip ${path()}`;
      if (!word.includes('=') && takesValue(owner, flag)) i++;
      continue;
    }
    const sub = walking ? here.commands.find((c) => c.name() === word) : undefined;
    if (sub) chain.push(sub);
    else if (walking && here.commands.length > 0 && !hasAction(here))
      return `${word} is no command of aip ${path()}`;
    // "aip emulator listening on …": a command that takes no argument is named in prose.
    else if (walking && here.registeredArguments.length === 0) return undefined;
    else walking = false;
  }
  return undefined;
}

/** The verb a noun runs when it is given none (`aip usage` → `aip usage summary`), if any. */
const defaultVerb = (command: Command) => {
  const name = (command as unknown as { _defaultCommandName: string | null })._defaultCommandName;
  return name ? command.commands.find((c) => c.name() === name) : undefined;
};

/** Whether the command runs by itself (`aip emulator`), or only names its subcommands (`aip models`). */
const hasAction = (command: Command) =>
  (command as unknown as { _actionHandler: unknown })._actionHandler != null;

describe('the commands that hints and messages name', () => {
  it('are real commands with real options, with nothing spliced in unquoted', () => {
    const tree = commandTree();
    const found = commandLines();
    // A scan that found nothing would pass: the hints of src/ name well over a hundred command lines.
    expect(found.length).toBeGreaterThan(100);
    // `jobs validate ${kind}`: the help's examples per kind, rl or sft, a fixed word.
    const wrong = found
      .map((f) => ({ ...f, words: f.words.map((w) => (w.startsWith(`$${'{kind'}`) ? 'rl' : w)) }))
      .flatMap((f) => {
        const why = problem(tree, f.words);
        return why ? [`${f.where}: aip ${f.words.join(' ')}: ${why}`] : [];
      });
    expect(wrong).toEqual([]);
  });

  it('so do the skill file and AGENTS.md, which agents copy from', () => {
    const tree = commandTree();
    const found: Found[] = [];
    for (const file of ['skills/aip/SKILL.md', 'AGENTS.md']) {
      readFileSync(join(ROOT, file), 'utf8')
        .split('\n')
        .forEach((line, i) => {
          // A shell comment ends the command line; a quoted prompt or reward command is one word.
          const shell = line.replace(/\s#\s.*$/, '').replace(/"[^"]*"/g, 'QUOTED');
          for (const match of shell.matchAll(COMMAND_LINE))
            found.push({ where: `${file}:${i + 1}`, words: match[1]!.trim().split(/ +/) });
        });
    }
    expect(found.length).toBeGreaterThan(30);
    const wrong = found.flatMap((f) => {
      const why = problem(tree, f.words);
      return why ? [`${f.where}: aip ${f.words.join(' ')}: ${why}`] : [];
    });
    expect(wrong).toEqual([]);
  });

  it('the checker refuses what it should', () => {
    const tree = commandTree();
    expect(problem(tree, ['models', 'list', '--local'])).toBe('--local is no option of aip models list');
    expect(problem(tree, ['models', 'lisst'])).toBe('lisst is no command of aip models');
    expect(problem(tree, ['events', `$${'{ref}'}`, '--after', 'x'])).toMatch(/unquoted/);
    expect(problem(tree, ['--profile', 'local', 'models', 'list', '--remembered', '--json'])).toBeUndefined();
    expect(problem(tree, ['itself'])).toBeUndefined();
  });
});

const t = useEmulator();
const { emu, run } = t;

/** The words /bin/sh makes of `line`, where aip is a function that prints its arguments. */
function pasted(line: string): string[] {
  const script = join(t.dir, 'paste.sh');
  writeFileSync(script, `aip() { for a in "$@"; do printf '%s\\0' "$a"; done; }\n${line}\n`);
  return execFileSync('/bin/sh', [script], { encoding: 'utf8', cwd: t.dir }).split('\0').slice(0, -1);
}

describe('next-page hints, pasted', () => {
  const NAME = `-a b'c "d" $(touch pwned) \`e\``;

  it('checkpoints list: a name with a leading dash, spaces, quotes and $( ) comes back whole', async () => {
    const id = (
      await run(['models', 'create', '--name', NAME, '--base-model', 'OpenPipe/Qwen3-14B-Instruct', '-q'])
    ).stdout.trim();
    await emu.control('POST', `/models/${id}/checkpoints`, { count: 5 });
    const r = await run(['checkpoints', 'list', '--limit', '2', '--order', 'desc', '--json', '--', NAME]);
    expect(r.code, r.stderr).toBe(0);
    const first = JSON.parse(r.stdout) as Array<{ id: string; step: number }>;
    const hint = /^More checkpoints: (.*) \(or --all\)\n$/.exec(r.stderr)?.[1];
    expect(hint).toBeDefined();
    const words = pasted(hint!);
    expect(words).toEqual(['checkpoints', 'list', '--after', first[1]!.id, '--order', 'desc', '--', NAME]);
    const next = await run([...words.slice(0, -2), '--limit', '2', '--json', ...words.slice(-2)]);
    expect(next.code, next.stderr).toBe(0);
    expect((JSON.parse(next.stdout) as Array<{ step: number }>).map((c) => c.step)).toEqual([3, 2]);
    expect(readdirSync(t.dir)).not.toContain('pwned');
  });

  it('events: a cursor holding quotes and a command substitution comes back whole', async () => {
    const id = (
      await run(['models', 'create', '--name', 'agent', '--base-model', 'OpenPipe/Qwen3-14B-Instruct', '-q'])
    ).stdout.trim();
    const groups = join(t.dir, 'groups.jsonl');
    writeFileSync(
      groups,
      `${JSON.stringify({
        trajectories: [
          {
            messages_and_choices: [
              { role: 'user', content: 'hi' },
              { finish_reason: 'stop', index: 0, message: { role: 'assistant', content: 'hello' } },
            ],
            reward: 1,
          },
        ],
      })}\n`,
    );
    const job = (await run(['jobs', 'create', 'rl', '--model', id, '--file', groups, '-q'])).stdout.trim();
    expect(job).toMatch(/^[\w-]+$/);
    const cursor = `x'; touch pwned; echo "$(touch pwned2)`;
    await emu.fault({
      method: 'GET',
      path: `/training/v1/preview/training-jobs/${job}/events`,
      status: 200,
      body: { object: 'list', data: [], has_more: true, last_id: cursor },
    });
    const r = await run(['events', job, '--json']);
    expect(r.code, r.stderr).toBe(0);
    const hint = /More events: (.*) \(or --all, or --follow\)\n$/.exec(r.stderr)?.[1];
    expect(hint, r.stderr).toBeDefined();
    expect(pasted(hint!)).toEqual(['events', job, '--after', cursor]);
    expect(readdirSync(t.dir).filter((f) => f.startsWith('pwned'))).toEqual([]);
  });
});
