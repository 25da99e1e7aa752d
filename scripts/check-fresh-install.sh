#!/usr/bin/env bash
# What a newcomer and a registry user do, on this machine but with nothing of its own: a fresh clone of
# this repository's HEAD and an empty HOME (no ~/.npmrc, no npm cache, no config, no keychain).
#   1. The README's quick-start command, verbatim (npm ci && npm run demo), then `aip emulator stop`.
#   2. The README's tour, verbatim, line by line, with `aip` on the PATH as `npm link` puts it, through
#      the local profile against `aip emulator --detach --demo`, durable (the state kept in HOME).
#   3. `npm pack`, then `npm install -g` of the tarball into an empty prefix: the tarball has no source
#      maps and has its licences; the install runs no install script; the installed aip works from
#      another directory, durable emulator included. Prints the installed size.
# CI runs it (.ci/run). It needs the npm registry; it uses port 4010 (the local profile's).
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d "${TMPDIR:-/tmp}/aip-fresh-XXXXXX")"
home="$work/home"
mkdir -p "$home"

cleanup() {
  # Whatever emulator this run started (the tour's, the installed aip's) is stopped with this HOME.
  for bin in "$work/prefix/bin/aip" "$work/aip/bin/aip.js"; do
    [ -e "$bin" ] && HOME="$home" node "$bin" emulator stop >/dev/null 2>&1 || true
  done
  rm -rf "$work"
}
trap cleanup EXIT

# Nothing of this machine's user or of an enclosing npm run: an empty HOME, no AIP_*, no npm_config_*.
for name in $(env | sed -n 's/^\(AIP_[A-Za-z0-9_]*\|npm_[A-Za-z0-9_]*\|XDG_[A-Za-z0-9_]*\|NODE_OPTIONS\)=.*/\1/p'); do
  unset "$name"
done
export HOME="$home"
export npm_config_update_notifier=false npm_config_fund=false npm_config_audit=false
step() { printf '\n== %s\n' "$*" >&2; }
seconds() { date +%s; }

# The README's fenced sh block after a heading: readme_block "## Quick start" N gives the Nth block.
readme_block() {
  awk -v heading="$1" -v nth="${2:-1}" '
    $0 == heading { inside = 1; n = 0; next }
    inside && /^## / { exit }
    inside && /^```sh$/ { n++; if (n == nth) { grab = 1; next } }
    grab && /^```$/ { exit }
    grab { print }
  ' "$repo/README.md"
}

step "a fresh clone of HEAD, HOME=$home"
git clone -q "$repo" "$work/aip"
cd "$work/aip"

quick_start="$(readme_block '## Quick start' 1)"
[ -n "$quick_start" ] || { echo "no quick-start command found in README.md" >&2; exit 1; }
step "README quick start: $quick_start"
start="$(seconds)"
bash -euo pipefail -c "$quick_start"
durable() { # <status JSON> <what>: the emulator keeps its state on disk
  node -e '
    const s = JSON.parse(process.argv[1]);
    if (!s.state_dir) { console.error(`${process.argv[2]}: the emulator is not durable: ${process.argv[1]}`); process.exit(1); }
    console.error(`${process.argv[2]}: emulator durable in ${s.state_dir}, SQLite through ${s.store}`);
  ' "$1" "$2"
}
durable "$(node bin/aip.js emulator status --json)" "quick start ($(($(seconds) - start)) s)"
node bin/aip.js emulator stop

step "npm link (into a prefix of this run's own)"
export npm_config_prefix="$work/link"
npm link --no-audit --no-fund --loglevel=error >/dev/null
export PATH="$work/link/bin:$PATH"
command -v aip >/dev/null

step "README tour, line by line, with AIP_PROFILE=local"
export AIP_PROFILE=local
tour="$(readme_block '## A tour' 1)"
[ -n "$tour" ] || { echo "no tour found in README.md" >&2; exit 1; }
# Each line as at a terminal where nothing is typed (stdin empty), but a conversation, which is given
# its first message: on a terminal it would open one; piped, stdin is its prompt. Before the emulator
# is stopped, its status is kept, to check that the tour's emulator was durable.
printf 'Hello from the tour\n' > "$work/stdin"
script="$work/tour.sh"
{
  echo 'set -euo pipefail'
  while IFS= read -r line; do
    [ -z "$line" ] && continue
    input=/dev/null
    if [[ "$line" =~ ^aip\ chat\ -m\ [^\ ]+[\ ]*(#.*)?$ ]]; then input="$work/stdin"; fi
    if [[ "$line" =~ ^aip\ emulator\ stop ]]; then printf 'aip emulator status --json > %q\n' "$work/tour-status.json"; fi
    printf 'printf "%%s\\n" %q >&2\n' "\$ $line"
    printf '{ %s\n} < %q\n' "$line" "$input"
  done <<< "$tour"
} > "$script"
bash "$script"
[ -s "$work/tour-status.json" ] || aip emulator status --json > "$work/tour-status.json"
durable "$(cat "$work/tour-status.json")" "tour ($(grep -c . <<< "$tour") lines)"
aip emulator stop >/dev/null 2>&1 || true
unset AIP_PROFILE npm_config_prefix

step "npm pack, then npm install -g of the tarball into an empty prefix"
npm pack --pack-destination "$work" --loglevel=error >/dev/null 2>"$work/pack.log" || { cat "$work/pack.log" >&2; exit 1; }
tarball="$(ls "$work"/aip-*.tgz)"
listing="$(tar -tzf "$tarball")"
if grep -q '\.map$' <<< "$listing"; then echo "the tarball has source maps" >&2; exit 1; fi
for file in package/LICENSE package/dist/THIRD_PARTY_NOTICES.md package/bin/aip.js package/dist/main.js; do
  grep -qx "$file" <<< "$listing" || { echo "the tarball lacks $file" >&2; exit 1; }
done
node -e '
  const p = JSON.parse(require("node:child_process").execFileSync("tar", ["-xzOf", process.argv[1], "package/package.json"]));
  const scripts = Object.keys(p.scripts ?? {}).filter((s) => /^(pre|post)?install$|^prepare$/.test(s));
  if (scripts.length) { console.error(`the package runs ${scripts} on install`); process.exit(1); }
' "$tarball"
echo "tarball: $(du -k "$tarball" | cut -f1) KiB packed, $(wc -l <<< "$listing") files" >&2
install_log="$work/install.log"
npm install -g --prefix "$work/prefix" "$tarball" --no-audit --no-fund > "$install_log" 2>&1 || { cat "$install_log" >&2; exit 1; }
if grep -qi 'install-scripts\|allowScripts\|gyp' "$install_log"; then cat "$install_log" >&2; echo "the install ran or asked for install scripts" >&2; exit 1; fi
installed="$work/prefix/lib/node_modules/aip"
echo "installed: $(du -sk "$installed" | cut -f1) KiB ($(du -sk "$installed/node_modules" 2>/dev/null | cut -f1 || echo 0) KiB of it dependencies)" >&2

step "the installed aip, from another directory"
mkdir -p "$work/elsewhere"
cd "$work/elsewhere"
aip="$work/prefix/bin/aip"
"$aip" --version
"$aip" emulator --detach --state-dir "$work/elsewhere-state" >/dev/null
export AIP_PROFILE=local
"$aip" health >/dev/null
"$aip" models create --name installed --base-model OpenPipe/Qwen3-14B-Instruct --return-existing >/dev/null
cp "$work/aip/examples/groups.jsonl" .
"$aip" jobs create rl --model installed --file groups.jsonl --wait >/dev/null
"$aip" events "$("$aip" jobs list --jq '.[0].id')" --jq 'length' >/dev/null
"$aip" --jq '.[].id' jobs list >/dev/null
durable "$("$aip" emulator status --json)" "installed aip"
"$aip" emulator stop >/dev/null
echo "installed aip: --version, a durable emulator, a job to its end, --jq: all worked" >&2
echo "fresh install: passed" >&2
