import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import { AppError, errorMessage, type Logger } from '@docflow/service-kit';
import type { AgentEntity } from '../agent.entity';
import type { AgentTool } from '../agent-tools';
import { credentialHeaders, type McpServerSetting, mcpServersOf } from './mcp-servers';

export interface McpToolboxOptions {
  /** The SSRF-safe fetch (libs/outbound-http createGuardedFetch, with REST_API_ALLOWED_HOSTS). */
  fetch: FetchLike;
  /** How long a server's tool list is reused (MCP_TOOLS_TTL_SECONDS). */
  ttlMs: number;
  /** Connecting and listing, per server (MCP_CONNECT_TIMEOUT_MS). */
  connectTimeoutMs: number;
  /** One tool call (MCP_CALL_TIMEOUT_MS). */
  callTimeoutMs: number;
  /** Characters of a tool's result the model gets (MCP_RESULT_MAX_CHARS). */
  resultMaxChars: number;
  /** The owner's credential's fields (the credential store), for `credential_id`. */
  credentialFields(ownerId: number, credentialId: number): Promise<Record<string, string> | undefined>;
  logger?: Logger;
  now?: () => number;
}

interface ListedTool {
  name: string;
  description?: string;
  inputSchema: Record<string, unknown>;
}

/** The MCP tools of one turn: offered as `<server>.<tool>`; close() ends the turn's connections. */
export interface McpTurn {
  tools: Map<string, AgentTool>;
  /** Servers whose tools are not offered this turn (down, refused, misconfigured). */
  unavailable: { server: string; reason: string }[];
  close(): Promise<void>;
}

class McpToolError extends AppError {
  constructor(message: string) {
    super(502, 'BadGatewayError', message, {}, 'mcp_tool_failed');
  }
}

function textOf(result: unknown): { text: string; isError: boolean } {
  const r = result as { content?: { type: string; text?: string }[]; structuredContent?: unknown; isError?: boolean; toolResult?: unknown };
  const parts = (r.content ?? []).map((c) => (c.type === 'text' ? (c.text ?? '') : `[${c.type} content]`));
  const text = parts.length > 0 ? parts.join('\n') : JSON.stringify(r.structuredContent ?? r.toolResult ?? null);
  return { text, isError: r.isError === true };
}

/**
 * An agent's MCP servers (issue 19, item 2), reached with the official SDK client over Streamable
 * HTTP (SSE for older servers) through the SSRF-safe fetch. Tools are listed at the start of a turn
 * (the list cached for `ttlMs`), filtered by `allowed_tools` (and, for key holders, `public_tools`)
 * and called in the agent's tool loop with a timeout and a size cap. A server that cannot be reached
 * only loses its tools for that turn.
 */
export class McpToolbox {
  private readonly lists = new Map<string, { expires: number; tools: ListedTool[] }>();

  constructor(private readonly options: McpToolboxOptions) {}

  private now(): number {
    return (this.options.now ?? Date.now)();
  }

  async open(agent: AgentEntity, keyHolder: boolean): Promise<McpTurn> {
    const tools = new Map<string, AgentTool>();
    const unavailable: McpTurn['unavailable'] = [];
    const clients: Client[] = [];
    if (agent.mcpServers.length === 0 || agent.ownerId === null) return { tools, unavailable, close: async () => undefined };
    const { servers, problems } = mcpServersOf(agent.mcpServers);
    for (const p of problems) unavailable.push({ server: '?', reason: p });
    await Promise.all(
      servers.map(async (server) => {
        try {
          const headers = await this.headersFor(agent.ownerId!, server);
          let client: Promise<Client> | undefined;
          const connect = () => (client ??= this.connect(server, headers).then((c) => (clients.push(c), c)));
          const listed = await this.list(server, agent.id, connect);
          const allowed = server.allowedTools ? new Set(server.allowedTools) : undefined;
          const publicOnly = keyHolder ? new Set(server.publicTools) : undefined;
          for (const t of listed) {
            if (allowed && !allowed.has(t.name)) continue;
            if (publicOnly && !publicOnly.has(t.name)) continue;
            tools.set(`${server.name}.${t.name}`, this.tool(server, t, connect));
          }
        } catch (err) {
          const reason = errorMessage(err);
          unavailable.push({ server: server.name, reason });
          this.options.logger?.warn('MCP server unavailable for this turn', { agentId: agent.id, server: server.name, error: reason });
        }
      }),
    );
    return {
      tools,
      unavailable,
      close: async () => {
        await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
      },
    };
  }

  private async headersFor(ownerId: number, server: McpServerSetting): Promise<Record<string, string>> {
    if (server.credentialId === undefined) return {};
    const fields = await this.options.credentialFields(ownerId, server.credentialId);
    if (!fields) throw new Error(`credential ${server.credentialId} is not one of the owner's`);
    return credentialHeaders(fields);
  }

  private async list(server: McpServerSetting, agentId: number, connect: () => Promise<Client>): Promise<ListedTool[]> {
    const key = `${agentId}\u0000${server.name}\u0000${server.url}\u0000${server.credentialId ?? ''}`;
    const cached = this.lists.get(key);
    if (cached && cached.expires > this.now()) return cached.tools;
    const client = await connect();
    const { tools } = await client.listTools(undefined, { timeout: this.options.connectTimeoutMs });
    const listed = tools.map((t) => ({ name: t.name, ...(t.description ? { description: t.description } : {}), inputSchema: t.inputSchema as Record<string, unknown> }));
    this.lists.set(key, { expires: this.now() + this.options.ttlMs, tools: listed });
    return listed;
  }

  private async connect(server: McpServerSetting, headers: Record<string, string>): Promise<Client> {
    const attempt = async (kind: 'streamable_http' | 'sse'): Promise<Client> => {
      const client = new Client({ name: 'docflow-agent', version: '1.0.0' });
      const url = new URL(server.url);
      const transport =
        kind === 'sse'
          ? new SSEClientTransport(url, {
              fetch: this.options.fetch,
              requestInit: { headers },
              eventSourceInit: { fetch: (u, init) => this.options.fetch(u, { ...init, headers: { ...headers, ...(init?.headers as Record<string, string>) } }) },
            })
          : new StreamableHTTPClientTransport(url, { fetch: this.options.fetch, requestInit: { headers } });
      await client.connect(transport, { timeout: this.options.connectTimeoutMs });
      return client;
    };
    if (server.transport !== 'auto') return attempt(server.transport);
    try {
      return await attempt('streamable_http');
    } catch {
      // An older server: SSE (the MCP specification's backwards-compatibility rule).
      return attempt('sse');
    }
  }

  private tool(server: McpServerSetting, t: ListedTool, connect: () => Promise<Client>): AgentTool {
    const max = this.options.resultMaxChars;
    return {
      forKeyHolders: true,
      description: `[MCP ${server.name}] ${t.description ?? t.name}`.slice(0, 1000),
      parameters: t.inputSchema,
      run: async (_ctx, args) => {
        const client = await connect();
        let result;
        try {
          result = await client.callTool({ name: t.name, arguments: args }, undefined, { timeout: this.options.callTimeoutMs });
        } catch (err) {
          throw new McpToolError(`${server.name}.${t.name} failed: ${errorMessage(err)}`);
        }
        const { text, isError } = textOf(result);
        if (isError) throw new McpToolError(`${server.name}.${t.name} answered an error: ${text.slice(0, 500)}`);
        return text.length > max ? `${text.slice(0, max)}… [cut at ${max} characters]` : text;
      },
    };
  }
}
