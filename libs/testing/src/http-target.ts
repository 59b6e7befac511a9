import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { errorMessage } from '@docflow/service-kit';

/** One request a target server received. */
export interface TargetHit {
  method: string;
  path: string;
  query: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  /** The body parsed as JSON; the text when it is not JSON; undefined when empty. */
  json: unknown;
  /** The capture groups of a pattern route (`onPattern`). */
  params: string[];
  /** Which TCP connection carried the request (1, 2, ...). */
  connection: number;
}

export interface TargetReply {
  status?: number;
  /** JSON unless a string (text/plain unless `headers` say otherwise); undefined sends an empty body with `rawEmpty`, else `null`. */
  body?: unknown;
  headers?: Record<string, string>;
  /** Never answer (to exercise client timeouts); the socket is closed when the target stops. */
  hang?: boolean;
  /** Send no body at all when `body` is undefined. */
  rawEmpty?: boolean;
  /** Destroy the socket without answering (exercises ECONNRESET). */
  reset?: boolean;
}

export type TargetRoute = (hit: TargetHit) => TargetReply | Promise<TargetReply>;

/**
 * A loopback HTTP server that workflows call in tests: routes by
 * `METHOD /path` (`* /path` for any method, query string ignored), records
 * every request (routed or not) and lets a test await the n-th hit of a path.
 * Unrouted paths answer 200 `{"canary": true}`.
 */
export class HttpTarget {
  readonly hits: TargetHit[] = [];
  private readonly routes = new Map<string, TargetRoute>();
  private patterns: { method: string; pattern: RegExp; route: TargetRoute }[] = [];
  private fallbackRoute: TargetRoute = () => ({ status: 200, body: { canary: true } });
  private failureReply: (err: unknown) => TargetReply = (err) => ({ status: 599, body: { error: errorMessage(err) } });
  private readonly waiters: { path: string; count: number; resolve: () => void }[] = [];

  private connections = 0;
  private readonly connectionIds = new WeakMap<object, number>();

  private constructor(private readonly server: http.Server) {
    server.on('connection', (socket) => this.connectionIds.set(socket, ++this.connections));
  }

  /** TCP connections accepted so far. */
  get connectionCount(): number {
    return this.connections;
  }

  /**
   * Listens on 127.0.0.1, or with `'::'` on every loopback spelling at once
   * (IPv4 and IPv6, dual stack): what a canary needs to see any stray request.
   */
  static async start(host: '127.0.0.1' | '::' = '127.0.0.1'): Promise<HttpTarget> {
    const holder: { self?: HttpTarget } = {};
    const server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => void holder.self?.serve(req, Buffer.concat(chunks).toString('utf8'), res));
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen({ port: 0, host, ipv6Only: false }, resolve);
    });
    holder.self = new HttpTarget(server);
    return holder.self;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  /** `host:port` as REST_API_ALLOWED_HOSTS lists it. */
  get hostPort(): string {
    return `127.0.0.1:${this.port}`;
  }

  /** `http://127.0.0.1:<port><path>` */
  url(path: string): string {
    return `http://127.0.0.1:${this.port}${path}`;
  }

  on(methodAndPath: string, route: TargetRoute): this {
    this.routes.set(methodAndPath, route);
    return this;
  }

  /** A route by method (`*` for any) and path pattern, whose capture groups become `hit.params`; a later one for the same method and pattern replaces it. */
  onPattern(method: string, pattern: RegExp, route: TargetRoute): this {
    this.patterns = this.patterns.filter((p) => !(p.method === method && p.pattern.source === pattern.source));
    this.patterns.push({ method, pattern, route });
    return this;
  }

  /** What answers a request no route takes (default: 200 `{"canary": true}`). */
  otherwise(route: TargetRoute): this {
    this.fallbackRoute = route;
    return this;
  }

  /** What answers when a route throws (default: 599 with the error's message). */
  onFailure(reply: (err: unknown) => TargetReply): this {
    this.failureReply = reply;
    return this;
  }

  hitsOf(path: string): TargetHit[] {
    return this.hits.filter((h) => h.path === path);
  }

  /** Resolves once `path` was hit `count` times in all; rejects after `ms`. */
  waitForHits(path: string, count: number, ms = 15000): Promise<void> {
    if (this.hitsOf(path).length >= count) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${path} was not hit ${count} times within ${ms} ms (hits: ${this.hitsOf(path).length})`)), ms);
      this.waiters.push({ path, count, resolve: () => (clearTimeout(timer), resolve()) });
    });
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async serve(req: http.IncomingMessage, body: string, res: http.ServerResponse): Promise<void> {
    const [path = '/', query = ''] = (req.url ?? '/').split('?');
    const method = req.method ?? 'GET';
    const pattern = this.patterns.find((p) => (p.method === method || p.method === '*') && p.pattern.test(path));
    const params = pattern ? (pattern.pattern.exec(path) ?? []).slice(1).map(String) : [];
    const hit: TargetHit = { method, path, query, headers: req.headers, body, json: parseJson(body), params, connection: this.connectionIds.get(req.socket) ?? 0 };
    this.hits.push(hit);
    for (const w of [...this.waiters]) {
      if (w.path === path && this.hitsOf(path).length >= w.count) {
        this.waiters.splice(this.waiters.indexOf(w), 1);
        w.resolve();
      }
    }
    const route = this.routes.get(`${hit.method} ${path}`) ?? this.routes.get(`* ${path}`) ?? pattern?.route ?? this.fallbackRoute;
    let reply: TargetReply;
    try {
      reply = await route(hit);
    } catch (err) {
      reply = this.failureReply(err);
    }
    if (res.destroyed || reply.hang) return;
    if (reply.reset) {
      req.socket.destroy();
      return;
    }
    const text = reply.body === undefined && reply.rawEmpty ? '' : typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body ?? null);
    const contentType = typeof reply.body === 'string' ? 'text/plain' : 'application/json';
    res.writeHead(reply.status ?? 200, { 'content-type': contentType, ...reply.headers });
    res.end(text);
  }
}

function parseJson(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/**
 * A gate that holds requests until the test opens it: `route` answers only
 * once `open()` was called (requests that arrive afterwards pass at once).
 */
export class Gate {
  private opened = false;
  private readonly waiting: (() => void)[] = [];

  route(reply: TargetReply): TargetRoute {
    return async () => {
      if (!this.opened) await new Promise<void>((resolve) => this.waiting.push(resolve));
      return reply;
    };
  }

  open(): void {
    this.opened = true;
    this.waiting.splice(0).forEach((release) => release());
  }
}
