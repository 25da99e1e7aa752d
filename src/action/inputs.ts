// The inputs of the action, as the runner hands them to a JavaScript action: one environment variable
// per input, INPUT_ and the name upper-cased with spaces as underscores (`working-directory` is
// INPUT_WORKING-DIRECTORY), a default from action.yml already filled in. Read the way @actions/core's
// getInput reads them (trimmed, "" when unset), without depending on the toolkit for one function.

export type Env = Readonly<Record<string, string | undefined>>;

export function getInput(env: Env, name: string): string {
  return (env[`INPUT_${name.replace(/ /g, '_').toUpperCase()}`] ?? '').trim();
}
