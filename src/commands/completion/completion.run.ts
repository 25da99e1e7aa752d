// Completion scripts generated from the command tree itself, so they can never list a command or flag
// that does not exist. Each script works out the command path typed so far ("aip/config/set") and
// offers that command's subcommands, argument choices and flags (its own and the global ones).

import type { CommandUnknownOpts as Command, Option } from '@commander-js/extra-typings';
import type { Context } from '../../context.js';
import type { Shell } from './completion.js';

interface Word {
  name: string;
  description: string;
}

interface Node {
  /** "aip", "aip/config", "aip/config/set" */
  path: string;
  subcommands: Word[];
  choices: string[];
  options: Word[];
}

function optionWords(options: readonly Option[]): Word[] {
  return options
    .filter((o) => !o.hidden)
    .flatMap((o) =>
      [o.long, o.short]
        .filter((f): f is string => Boolean(f))
        .map((name) => ({ name, description: o.description })),
    );
}

function collect(command: Command, path: string, globals: Word[], out: Node[]): Node[] {
  const own = optionWords(command.options);
  out.push({
    path,
    subcommands: command.commands.map((c) => ({ name: c.name(), description: c.description() })),
    choices: command.registeredArguments.flatMap((a) => a.argChoices ?? []),
    options: [...own, ...globals, { name: '--help', description: 'show help' }],
  });
  for (const sub of command.commands) collect(sub, `${path}/${sub.name()}`, globals, out);
  return out;
}

function nodes(program: Command): Node[] {
  const globals = optionWords(program.options).filter((w) => w.name !== '--version' && w.name !== '-V');
  const tree = collect(program, 'aip', globals, []);
  tree[0]!.options.push({ name: '--version', description: 'print the version' });
  tree[0]!.options = tree[0]!.options.filter((o, i, all) => all.findIndex((x) => x.name === o.name) === i);
  return tree;
}

const quoteSingle = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;
const oneLine = (text: string) => text.replace(/\s+/g, ' ').trim();

function pathCases(all: Node[], indent: string, assign: string): string {
  const paths = all.slice(1).map((n) => n.path);
  return paths.length
    ? `${indent}case "$p/$w" in\n${indent}  ${paths.join('|')}) ${assign} ;;\n${indent}esac`
    : '';
}

function bash(all: Node[]): string {
  const cases = all
    .map((n) => {
      const words = [...n.subcommands.map((s) => s.name), ...n.choices, ...n.options.map((o) => o.name)].join(
        ' ',
      );
      return `    ${n.path}) words=${quoteSingle(words)} ;;`;
    })
    .join('\n');
  return `# aip completion for bash. Load it with: source <(aip completion bash)
_aip() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" p=aip w i words=''
  for ((i = 1; i < COMP_CWORD; i++)); do
    w="\${COMP_WORDS[i]}"
${pathCases(all, '    ', 'p="$p/$w"')}
  done
  case "$p" in
${cases}
  esac
  COMPREPLY=($(compgen -W "$words" -- "$cur"))
}
complete -F _aip aip
`;
}

function zsh(all: Node[]): string {
  const describe = (words: Word[]) =>
    words.map((w) => quoteSingle(`${w.name.replace(/:/g, '\\:')}:${oneLine(w.description)}`)).join(' ');
  const cases = all
    .map((n) => {
      const commands = [...n.subcommands, ...n.choices.map((c) => ({ name: c, description: '' }))];
      return `    ${n.path}) commands=(${describe(commands)}); options=(${describe(n.options)}) ;;`;
    })
    .join('\n');
  return `#compdef aip
# aip completion for zsh. Save it as _aip in a directory of $fpath: aip completion zsh > "\${fpath[1]}/_aip"
_aip() {
  local p=aip w i
  local -a commands options
  for ((i = 2; i < CURRENT; i++)); do
    w="\${words[i]}"
${pathCases(all, '    ', 'p="$p/$w"')}
  done
  case "$p" in
${cases}
  esac
  if [[ "\${words[CURRENT]}" == -* ]]; then
    _describe -t options 'aip option' options
  else
    _describe -t commands 'aip command' commands
  fi
}
if [[ "\${funcstack[1]}" == _aip ]]; then _aip "$@"; else compdef _aip aip; fi
`;
}

function fish(all: Node[]): string {
  const lines: string[] = [];
  for (const n of all) {
    const when = `-n '__aip_at ${n.path}'`;
    for (const s of n.subcommands)
      lines.push(`complete -c aip ${when} -a ${s.name} -d ${quoteSingle(oneLine(s.description))}`);
    for (const c of n.choices) lines.push(`complete -c aip ${when} -a ${c}`);
    for (const o of n.options) {
      const flag = o.name.startsWith('--') ? `-l ${o.name.slice(2)}` : `-s ${o.name.slice(1)}`;
      lines.push(`complete -c aip ${when} ${flag} -d ${quoteSingle(oneLine(o.description))}`);
    }
  }
  const paths = all
    .slice(1)
    .map((n) => n.path)
    .join(' ');
  return `# aip completion for fish. Save it: aip completion fish > ~/.config/fish/completions/aip.fish
function __aip_at
    set -l p aip
    for w in (commandline -opc)[2..-1]
        if contains -- "$p/$w" ${paths}
            set p "$p/$w"
        end
    end
    test "$p" = "$argv[1]"
end
complete -c aip -f
${lines.join('\n')}
`;
}

function completionScript(program: Command, shell: Shell): string {
  const all = nodes(program);
  return shell === 'bash' ? bash(all) : shell === 'zsh' ? zsh(all) : fish(all);
}

export async function runCompletion(ctx: Context, program: Command, shell: Shell): Promise<void> {
  ctx.io.write(completionScript(program, shell));
}
