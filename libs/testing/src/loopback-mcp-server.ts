import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';

/** What a loopback MCP server saw: each tool call with its arguments and the Authorization header of its request. */
export interface McpCallRecord {
  tool: string;
  arguments: Record<string, unknown>;
  authorization: string | undefined;
}

/**
 * A real MCP server on 127.0.0.1, built with the official SDK (tests, and `npm run mcp:demo`):
 * Streamable HTTP at `/mcp` (stateless: a server per request) and the older SSE transport at
 * `/sse` + `/messages`. Tools: `add` (two numbers), `echo` (a text), `whoami` (the Authorization
 * header it was called with), `big` (a text of n characters), `slow` (answers after ms).
 */
export class LoopbackMcpServer {
  readonly calls: McpCallRecord[] = [];
  /** Requests that listed tools. */
  listings = 0;
  private readonly sse = new Map<string, SSEServerTransport>();

  private constructor(private readonly server: http.Server) {}

  static async start(port = 0): Promise<LoopbackMcpServer> {
    const holder: { self?: LoopbackMcpServer } = {};
    const server = http.createServer((req, res) => {
      void holder.self?.handle(req, res).catch(() => {
        if (!res.headersSent) res.writeHead(500).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    holder.self = new LoopbackMcpServer(server);
    return holder.self;
  }

  get hostPort(): string {
    return `127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** The Streamable HTTP endpoint. */
  get url(): string {
    return `http://${this.hostPort}/mcp`;
  }

  /** The SSE endpoint (older servers). */
  get sseUrl(): string {
    return `http://${this.hostPort}/sse`;
  }

  private mcpServer(authorization: string | undefined): McpServer {
    const mcp = new McpServer({ name: 'docflow-loopback-mcp', version: '1.0.0' });
    const record = (tool: string, args: Record<string, unknown>) => this.calls.push({ tool, arguments: args, authorization });
    const text = (t: string) => ({ content: [{ type: 'text' as const, text: t }] });
    mcp.registerTool('add', { description: 'Add two numbers', inputSchema: { a: z.number(), b: z.number() } }, (args) => {
      record('add', args);
      return text(String(args.a + args.b));
    });
    mcp.registerTool('echo', { description: 'Echo a text back', inputSchema: { text: z.string() } }, (args) => {
      record('echo', args);
      return text(args.text);
    });
    mcp.registerTool('whoami', { description: 'Tell which Authorization header the call carried' }, () => {
      record('whoami', {});
      return text(authorization ?? 'nobody');
    });
    mcp.registerTool('big', { description: 'A text of n characters', inputSchema: { n: z.number() } }, (args) => {
      record('big', args);
      return text('x'.repeat(args.n));
    });
    mcp.registerTool('slow', { description: 'Answers after ms milliseconds', inputSchema: { ms: z.number() } }, async (args) => {
      record('slow', args);
      await new Promise((r) => setTimeout(r, args.ms));
      return text('done');
    });
    return mcp;
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?')[0];
    const authorization = typeof req.headers.authorization === 'string' ? req.headers.authorization : undefined;
    if (path === '/mcp') {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      const raw = Buffer.concat(chunks).toString('utf8');
      const body: unknown = raw ? JSON.parse(raw) : undefined;
      if (JSON.stringify(body ?? '').includes('"tools/list"')) this.listings += 1;
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      const mcp = this.mcpServer(authorization);
      res.on('close', () => void transport.close().then(() => mcp.close()));
      await mcp.connect(transport);
      await transport.handleRequest(req, res, body);
      return;
    }
    if (path === '/sse' && req.method === 'GET') {
      const transport = new SSEServerTransport('/messages', res);
      this.sse.set(transport.sessionId, transport);
      res.on('close', () => this.sse.delete(transport.sessionId));
      await this.mcpServer(authorization).connect(transport);
      return;
    }
    if (path === '/messages' && req.method === 'POST') {
      const id = new URL(req.url ?? '/', 'http://x').searchParams.get('sessionId') ?? '';
      const transport = this.sse.get(id);
      if (!transport) {
        res.writeHead(404).end('no session');
        return;
      }
      await transport.handlePostMessage(req, res);
      return;
    }
    res.writeHead(404).end('not found');
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
