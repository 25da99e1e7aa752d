#!/usr/bin/env bash
# The quick start (npm run demo): the emulator in the background, then, through the built-in `local`
# profile, a model created, an RL job run to its end, the checkpoints it made listed, and the trained
# model asked a question (on the Training API, as wandb-artifact:///…/demo-agent).
set -euo pipefail
cd "$(dirname "$0")/.."
aip() { node bin/aip.js --profile local "$@"; }

node bin/aip.js emulator --detach --step-ms 250
aip health
aip models create --name demo-agent --base-model OpenPipe/Qwen3-14B-Instruct --return-existing
aip jobs create rl --model demo-agent --file examples/groups.jsonl --wait
aip checkpoints list demo-agent --order desc --limit 5
aip chat -m demo-agent --usage "How did the training go?"
echo "The emulator keeps running; stop it with: node bin/aip.js emulator stop" >&2
