// What `aip mcp` runs in the GitHub Action's bundle (scripts/build-action.mjs puts it in place of
// mcp.run.ts): an MCP server over a CI step's stdio serves no one, and the SDK with its dependencies
// would add half again to the one file every step of the action loads (2.0 MB to 3.1 MB).

import { CliError } from '../../errors/errors.js';

export async function runMcp(): Promise<void> {
  throw new CliError("aip mcp is not in the GitHub Action's bundle", {
    hint: 'run it from the npm package: npx aip mcp',
  });
}
