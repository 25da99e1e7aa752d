# zsh -f zsh-complete.zsh <functions-dir> <line>…: types each line into an interactive zsh (no start-up
# files) on a pseudo-terminal, with compinit and the functions directory (aip's _aip) on $fpath, and
# presses TAB. compadd, which every completion function ends in, is wrapped to print what it is asked
# to offer (zsh itself matching it against the word, by -A) with its description; _files to say that
# files were asked for. Prints, per line, <LINE>line<END> and then those <OFFER>/<FILES> lines.
zmodload zsh/zpty
zpty z zsh -f -i
zpty -w z "setup() {
  stty columns 1000; PS1= PROMPT= RPROMPT=
  fpath=(${(q)1} \$fpath)
  autoload -Uz compinit && compinit -u -D
  compadd() {
    local -a __hits __dscr
    if (( \$@[(I)-d] )); then __dscr=( \"\${(@P)\${@[\$((\${@[(i)-d]}+1))]}}\" ); fi
    builtin compadd -A __hits -D __dscr \"\$@\"
    local i
    for i in {1..\$#__hits}; do print -r -- \"<OFFER>\$__hits[i]<DESC>\$__dscr[i]<END>\"; done
  }
  _files() { print -r -- \"<FILES>\$*<END>\"; }
  __done() { print -r -- '<DONE>'; }
  bindkey '^I' complete-word
  bindkey '^U' kill-whole-line
}; setup; print READY"
zpty -r z out '*READY*'
zpty -r z out '*READY*'
shift
for line in "$@"; do
  # Reset after each completion: set anew for each line.
  zpty -w z 'comppostfuncs=(__done)'
  zpty -w -n z "$line"$'\t'
  zpty -r z out '*<DONE>*'
  print -r -- "<LINE>$line<END>"
  print -r -- "$out" | tr -d '\r' | grep -o '<OFFER>.*<END>\|<FILES>.*<END>'
  zpty -w -n z $'\x15'
done
zpty -d z
