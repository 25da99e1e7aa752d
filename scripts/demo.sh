#!/usr/bin/env bash
# The quick start (npm run demo): the emulator in the background, then, through the built-in `local`
# profile, a model created, an RL job run to its end, and the checkpoints it made listed.
set -euo pipefail
cd "$(dirname "$0")/.."
aip() { node bin/aip.js --profile local "$@"; }

node bin/aip.js emulator --detach --step-ms 250
aip health
aip models create --name demo-agent --base-model OpenPipe/Qwen3-14B-Instruct --return-existing
aip jobs create rl --model demo-agent --file examples/groups.jsonl --wait
aip checkpoints list demo-agent --order desc --limit 5
echo "The emulator keeps running; stop it with: node bin/aip.js emulator stop" >&2
