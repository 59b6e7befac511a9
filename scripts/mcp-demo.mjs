#!/usr/bin/env node
// `npm run mcp:demo [-- --port 8765]`: starts the loopback MCP server of libs/testing (built with the
// official SDK) on 127.0.0.1, so that an agent can be given it in `mcp_servers`. Tools: add, echo,
// whoami, big, slow. Streamable HTTP at /mcp, the older SSE transport at /sse. Ctrl-C stops it.
import { build } from 'esbuild';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const portArg = process.argv.indexOf('--port');
const port = portArg >= 0 ? Number(process.argv[portArg + 1]) : 8765;
const outfile = path.join(root, '.tmp', 'mcp-demo.cjs');
await build({
  entryPoints: [path.join(root, 'libs', 'testing', 'src', 'loopback-mcp-server.ts')],
  outfile,
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  packages: 'external',
  logLevel: 'warning',
});
const { LoopbackMcpServer } = createRequire(import.meta.url)(outfile);
const server = await LoopbackMcpServer.start(port);
console.log(`MCP demo server: ${server.url} (Streamable HTTP), ${server.sseUrl} (SSE)`);
console.log(`Give an agent: "mcp_servers": [{"name": "demo", "url": "${server.url}"}] and set REST_API_ALLOWED_HOSTS=${server.hostPort} for the public API.`);
process.on('SIGINT', () => void server.stop().then(() => process.exit(0)));
