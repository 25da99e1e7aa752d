#!/usr/bin/env bash
# The quick start (npm run demo): the emulator in the background, then, through the built-in `local`
# profile, a model created, an RL job run to its end, the checkpoints it made listed, and the trained
# model asked a question (on the Training API, as wandb-artifact:///…/demo-agent); then an agent
# trained from the shell (README, "Train an agent from the shell"): three iterations of rollouts on
# arithmetic tasks scored by examples/reward.mjs, the untrained checkpoint against the last, and a
# report of every checkpoint.
set -euo pipefail
cd "$(dirname "$0")/.."
aip() { node bin/aip.js --profile local "$@"; }

# The emulator keeps what it is given in its state directory (aip's data directory), across restarts.
node bin/aip.js emulator --detach --step-ms 250
aip health
aip models create --name demo-agent --base-model OpenPipe/Qwen3-14B-Instruct --return-existing
aip jobs create rl --model demo-agent --file examples/groups.jsonl --wait
aip checkpoints list demo-agent --order desc --limit 5
aip chat -m demo-agent --usage "How did the training go?"

run_dir="${TMPDIR:-/tmp}/aip-demo-train-$(date -u +%Y%m%dT%H%M%SZ)"
aip models create --name math-agent --base-model OpenPipe/Qwen3-14B-Instruct --return-existing
aip reward test --tasks examples/arithmetic.jsonl --model math-agent -K 8 --reward-cmd "node examples/reward.mjs"
aip train rl --model math-agent --tasks examples/arithmetic.jsonl --steps 3 -K 8 \
  --reward-cmd "node examples/reward.mjs" --run-dir "$run_dir"
aip eval --model math-agent:step0 --model math-agent --tasks examples/arithmetic.jsonl --reward exact -K 4 --diff
# Every checkpoint of the run, drawn and written as a report to open in a browser or paste in a PR.
aip eval --model 'math-agent:step*' --tasks examples/arithmetic.jsonl --reward exact -K 4 --plot \
  --report "$run_dir/report.html"
echo "The training run is kept in $run_dir, its report in $run_dir/report.html" >&2
echo "The emulator keeps running; stop it with: node bin/aip.js emulator stop" >&2
