// The yardstick of bench/mcp.mjs: the smallest MCP server the official SDK makes, over stdio, with one
// tool, as an agent's client starts it. What `aip mcp` adds to its start-up is aip's own.

import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';

const server = new McpServer({ name: 'minimal', version: '1.0.0' });
server.registerTool('health', { description: 'Says the server is up.' }, async () => ({
  content: [{ type: 'text', text: 'ok' }],
}));
await server.connect(new StdioServerTransport());
