// The completion scripts. Each is small: on every TAB it asks aip itself (`aip __complete`, whose
// answer complete.run.ts describes), so what it offers always matches the aip installed, subcommands,
// flags, choices and values from this machine's local state alike. Each shell then does what it does
// best: bash inserts plain values, zsh and fish show descriptions, all three complete file paths
// themselves where a file is expected.

import type { Context } from '../../context.js';
import type { Shell } from './completion.js';

// Written for bash 3.2 (macOS's) as well: no mapfile, no negative indices.
const BASH = `# aip completion for bash. Load it with: source <(aip completion bash)
_aip() {
  local cur=\${2-\${COMP_WORDS[COMP_CWORD]}} w i n=0 line directive
  local -a words=() lines=()
  # The words before the current one, quotes removed, "--flag=value" put back together (bash splits
  # words at "="): aip reads them as it will parse them.
  for ((i = 1; i < COMP_CWORD; i++)); do
    w=\${COMP_WORDS[i]//[\\"\\']/}
    if ((n > 0)) && [[ $w == = || \${words[n - 1]} == --*= ]]; then
      words[n - 1]+=$w
    else
      words[n]=$w
      n=$((n + 1))
    fi
  done
  # Completing the value of "--flag=": the value is the word, the flag the word before it.
  if ((n > 0)) && [[ \${words[n - 1]} == --*= ]]; then words[n - 1]=\${words[n - 1]%=}; fi
  [[ $cur == = ]] && cur=
  cur=\${cur//[\\"\\']/}
  while IFS= read -r line; do lines+=("$line"); done < <(command aip __complete -- "\${words[@]}" "$cur" 2>/dev/null)
  n=\${#lines[@]}
  ((n > 0)) || return 0
  directive=\${lines[n - 1]}
  COMPREPLY=()
  case $directive in
    :files | :directories)
      compopt -o filenames 2>/dev/null
      [[ $directive == :files ]] && w=-f || w=-d
      while IFS= read -r line; do COMPREPLY+=("$line"); done < <(compgen "$w" -- "$cur")
      ;;
    :values)
      for ((i = 0; i < n - 1; i++)); do
        printf -v line '%q' "\${lines[i]%%$'\\t'*}"
        COMPREPLY+=("$line")
      done
      ;;
  esac
}
complete -F _aip aip
`;

const ZSH = `#compdef aip
# aip completion for zsh. Save it as _aip in a directory of $fpath: aip completion zsh > "\${fpath[1]}/_aip"
_aip() {
  local -a lines candidates
  local line
  lines=(\${(f)"$(command aip __complete -- "\${(@Q)words[2,CURRENT-1]}" "\${(Q)PREFIX}" 2>/dev/null)"})
  (( $#lines )) || return 1
  case $lines[-1] in
    :files) _files ;;
    :directories) _files -/ ;;
    :values)
      for line in "\${(@)lines[1,-2]}"; do
        # _describe's "value:description", a ":" in the value escaped.
        if [[ $line == *$'\\t'* ]]; then
          candidates+=("\${\${line%%$'\\t'*}//:/\\\\:}:\${line#*$'\\t'}")
        else
          candidates+=("\${line//:/\\\\:}")
        fi
      done
      (( $#candidates )) && _describe -t values aip candidates
      ;;
  esac
}
if [[ "\${funcstack[1]}" == _aip ]]; then _aip "$@"; else compdef _aip aip; fi
`;

const FISH = `# aip completion for fish. Save it: aip completion fish > ~/.config/fish/completions/aip.fish
function __aip_complete
    set -l current (commandline -ct | string trim -c '\\'"')
    set -l lines (command aip __complete -- (commandline -opc)[2..-1] "$current" 2>/dev/null)
    set -q lines[1]; or return
    switch $lines[-1]
        case :files
            __fish_complete_path "$current"
        case :directories
            __fish_complete_directories "$current" ''
        case :values
            set -q lines[2]; and printf '%s\\n' $lines[1..-2]
    end
end
complete -c aip -f -a '(__aip_complete)'
`;

export async function runCompletion(ctx: Context, shell: Shell): Promise<void> {
  ctx.io.write(shell === 'bash' ? BASH : shell === 'zsh' ? ZSH : FISH);
}
