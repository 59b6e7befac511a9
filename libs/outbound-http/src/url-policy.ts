import { describeForbiddenAddress, isIpLiteral } from './address-policy';
import { configurationError, refusedDestination } from './outbound-error';

const DEFAULT_PORTS: Readonly<Record<string, number>> = { 'http:': 80, 'https:': 443 };

/**
 * REST_API_ALLOWED_HOSTS, parsed once. Each entry is `host:port` (IPv6 in
 * brackets); an entry without a port matches the default port of the
 * request's scheme (80 for http, 443 for https) and nothing else. Hosts are
 * normalised like URLs are (`127.1` is `127.0.0.1`, case-insensitive).
 */
export class AllowedHosts {
  private readonly exact = new Set<string>();
  private readonly defaultPortHosts = new Set<string>();

  constructor(entries: readonly string[]) {
    for (const raw of entries) {
      const entry = raw.trim();
      if (entry === '') continue;
      const match = /^(\[[^\]]+\]|[^:/@?#[\]\s]+)(?::(\d{1,5}))?$/.exec(entry);
      const hostPart = match?.[1];
      if (hostPart === undefined) throw new Error(`Invalid allowed host entry "${entry}": expected host:port`);
      const host = normaliseHost(hostPart, entry);
      const portText = match?.[2];
      if (portText === undefined) {
        this.defaultPortHosts.add(host);
        continue;
      }
      const port = Number(portText);
      if (port < 1 || port > 65535) throw new Error(`Invalid allowed host entry "${entry}": port out of range`);
      this.exact.add(`${host}:${port}`);
    }
  }

  /** True when the URL's host and effective port match an entry exactly. */
  has(url: URL): boolean {
    const defaultPort = DEFAULT_PORTS[url.protocol];
    if (defaultPort === undefined) return false;
    const host = url.hostname.toLowerCase();
    const port = url.port === '' ? defaultPort : Number(url.port);
    if (this.exact.has(`${host}:${port}`)) return true;
    return port === defaultPort && this.defaultPortHosts.has(host);
  }

  get size(): number {
    return this.exact.size + this.defaultPortHosts.size;
  }
}

function normaliseHost(hostPart: string, entry: string): string {
  try {
    const hostname = new URL(`http://${hostPart}/`).hostname;
    if (hostname === '') throw new Error('empty host');
    return hostname.toLowerCase();
  } catch {
    throw new Error(`Invalid allowed host entry "${entry}": bad host`);
  }
}

export interface CheckedUrl {
  url: URL;
  /** The host:port matched REST_API_ALLOWED_HOSTS: no address check applies. */
  exempt: boolean;
  /** The host is an IP literal (already checked); otherwise DNS is checked at connect. */
  literal: boolean;
}

/** Host part without IPv6 brackets, as the socket layer wants it. */
export function bareHostname(url: URL): string {
  const host = url.hostname;
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}

function isLocalhostName(host: string): boolean {
  const name = host.toLowerCase().replace(/\.+$/, '');
  return name === 'localhost' || name.endsWith('.localhost');
}

/**
 * Throws a configuration OutboundRequestError unless `url` may be requested:
 * http(s) only, no embedded credentials, and, unless the host:port is in
 * `allowedHosts`, no IP literal outside public unicast and no `localhost`.
 * Other host names pass here; their addresses are checked at connect time.
 */
export function assertUrlAllowed(url: string | URL, allowedHosts: readonly string[] | AllowedHosts): CheckedUrl {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw configurationError('Invalid URL');
  }
  if (DEFAULT_PORTS[parsed.protocol] === undefined) {
    throw configurationError(`URL scheme "${parsed.protocol}" is not allowed; only http and https are`);
  }
  if (parsed.username !== '' || parsed.password !== '') {
    throw configurationError('URLs with embedded credentials are not allowed; send them in a header');
  }
  const host = bareHostname(parsed);
  if (host === '') throw configurationError('URL has no host');
  const literal = isIpLiteral(host);
  const allowed = allowedHosts instanceof AllowedHosts ? allowedHosts : new AllowedHosts(allowedHosts);
  if (allowed.has(parsed)) return { url: parsed, exempt: true, literal };
  if (literal ? describeForbiddenAddress(host) !== null : isLocalhostName(host)) throw refusedDestination(parsed.hostname);
  return { url: parsed, exempt: false, literal };
}
