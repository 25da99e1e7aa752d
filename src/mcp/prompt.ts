// The prompt `train_agent`: a walk through training an agent on a task set with aip's tools, in the
// order a person at a shell would go (docs/commands.md): check the data, a model, the reward, the RL
// loop or one job, its wait, the checkpoints, an eval of the first against the last.

export interface TrainAgentArgs {
  tasks: string;
  name?: string;
  base_model?: string;
  reward?: string;
}

export const TRAIN_AGENT = {
  name: 'train_agent',
  title: 'Train an agent on these tasks',
  description:
    'Walks through training a model on a tasks file with aip: create the model, check the reward, run RL (train_rl, or rollouts → jobs_create_rl → jobs_wait), list the checkpoints and evaluate them',
};

export function trainAgentPrompt(args: TrainAgentArgs, tools: ReadonlySet<string>): string {
  const name = args.name || 'agent';
  const base = args.base_model || 'OpenPipe/Qwen3-14B-Instruct';
  const reward = args.reward || 'exact';
  const rewardArg = reward.startsWith('cmd:')
    ? `reward_cmd: ${JSON.stringify(reward.slice(4))} (offered only by a server started with --allow-commands: if the tool has no reward_cmd, ask the user to restart it so, or use a built-in reward)`
    : `reward: ${JSON.stringify(reward)}`;
  const missing = [
    'models_create',
    'train_rl',
    'jobs_create_rl',
    'jobs_wait',
    'checkpoints_list',
    'eval',
  ].filter((tool) => !tools.has(tool));
  const readOnly = missing.length
    ? `\nNote: this server does not offer ${missing.join(', ')} (it may run with --read-only); say so to the user rather than working around it.\n`
    : '';
  return `Train an agent on the tasks in ${JSON.stringify(args.tasks)} with aip's tools. Each tool returns the JSON of \`aip … --json\`; a failed one returns its error line and exit code (resource aip://formats/exit-codes). The task format is in aip://formats/tasks, the training data format in aip://formats/trajectory-groups, the JSON of jobs and checkpoints in aip://formats/json-shapes.
${readOnly}
1. Check where you are: call \`health\` (and \`auth_status\` if a call fails with exit 4). To practise without spending credits, the user can start the local emulator ("aip emulator --detach") and run this server with "aip --profile local mcp".
2. Create the model: \`models_create\` with name: ${JSON.stringify(name)}, base_model: ${JSON.stringify(base)}, return_existing: true. Later tools take the name.
3. Check the reward before paying for training: \`reward_test\` with model: ${JSON.stringify(name)}, tasks: ${JSON.stringify(args.tasks)}, ${rewardArg}. If the rewards do not vary within groups, RL has nothing to learn from: fix the reward or the tasks first.
4. Train. Either the whole loop in one call: \`train_rl\` with model, tasks, steps (say 3), ${rewardArg}, run_dir (a directory for its state; \`resume\` carries a stopped run on). Or one step by hand: \`rollouts\` (model, tasks, ${rewardArg}, output: a groups file) to sample and score, then \`jobs_create_rl\` with model and file (the groups), then \`jobs_wait\` with the job id. Waits report progress, and can be cancelled; a cancelled or timed-out wait leaves the job running (call \`jobs_wait\` again). Exit 5 means the job failed: read \`events\` for why.
5. Look at the result: \`checkpoints_list\` with model: ${JSON.stringify(name)} (order: "desc", limit: 5); each checkpoint has its step and metrics (reward, loss).
6. Evaluate: \`eval\` with model: ["${name}:step0", "${name}:latest"], tasks: ${JSON.stringify(args.tasks)}, ${rewardArg}. Report the mean reward of each checkpoint and whether training helped.
7. Clean up only if the user asks: \`checkpoints_prune\` (keep_last, dry_run first) and \`models_delete\` need confirm: true, after the user agreed.
`;
}
