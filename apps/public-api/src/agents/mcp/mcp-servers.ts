import { isPlainObject } from '@docflow/workflow';

/**
 * An agent's `mcp_servers` entry (2.10 leaves the object open; issue 19, item 2):
 * `{name, url, transport?, credential_id?, allowed_tools?, public_tools?}`. `transport` is
 * `streamable_http`, `sse` (older servers) or, when absent, Streamable HTTP with SSE as fallback.
 * `public_tools` names the tools (without the server prefix) key holders of the agent may use.
 */
export interface McpServerSetting {
  name: string;
  url: string;
  transport: 'streamable_http' | 'sse' | 'auto';
  credentialId?: number;
  allowedTools?: string[];
  publicTools: string[];
}

const NAME = /^[A-Za-z0-9_-]{1,32}$/;

function names(v: unknown): string[] | undefined {
  return Array.isArray(v) && v.every((n) => typeof n === 'string') ? (v as string[]) : undefined;
}

/** The usable entries, and what is wrong with the others (those are skipped, the chat goes on). */
export function mcpServersOf(raw: readonly Record<string, unknown>[]): { servers: McpServerSetting[]; problems: string[] } {
  const servers: McpServerSetting[] = [];
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const [i, entry] of raw.entries()) {
    if (!isPlainObject(entry)) {
      problems.push(`mcp_servers[${i}]: not an object`);
      continue;
    }
    const { name, url, transport, credential_id: credentialId } = entry;
    if (typeof name !== 'string' || !NAME.test(name) || seen.has(name)) {
      problems.push(`mcp_servers[${i}].name: 1 to 32 letters, digits, _ or -, unique`);
      continue;
    }
    if (typeof url !== 'string' || !/^https?:\/\//i.test(url)) {
      problems.push(`mcp_servers[${i}].url: an http(s) URL`);
      continue;
    }
    const t = transport === undefined || transport === null ? 'auto' : transport === 'http' ? 'streamable_http' : transport;
    if (t !== 'auto' && t !== 'streamable_http' && t !== 'sse') {
      problems.push(`mcp_servers[${i}].transport: streamable_http or sse`);
      continue;
    }
    seen.add(name);
    const allowed = names(entry['allowed_tools']);
    servers.push({
      name,
      url,
      transport: t,
      ...(typeof credentialId === 'number' && Number.isInteger(credentialId) ? { credentialId } : {}),
      ...(allowed ? { allowedTools: allowed } : {}),
      publicTools: names(entry['public_tools']) ?? [],
    });
  }
  return { servers, problems };
}

/**
 * Request headers from a credential's fields: `authorization` as given, else `token` or `api_key`
 * as a bearer token; and each `header_<Name>` field as the header `<Name>`.
 */
export function credentialHeaders(fields: Record<string, string>): Record<string, string> {
  const headers: Record<string, string> = {};
  const bearer = fields['token'] ?? fields['api_key'];
  if (fields['authorization']) headers['authorization'] = fields['authorization'];
  else if (bearer) headers['authorization'] = `Bearer ${bearer}`;
  for (const [key, value] of Object.entries(fields)) {
    const m = /^header_([A-Za-z0-9-]{1,64})$/.exec(key);
    if (m?.[1]) headers[m[1].toLowerCase()] = value;
  }
  return headers;
}
