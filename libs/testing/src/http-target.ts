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
}

export interface TargetReply {
  status?: number;
  body?: unknown;
  headers?: Record<string, string>;
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
  private readonly waiters: { path: string; count: number; resolve: () => void }[] = [];

  private constructor(private readonly server: http.Server) {}

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
    const hit: TargetHit = { method: req.method ?? 'GET', path, query, headers: req.headers, body };
    this.hits.push(hit);
    for (const w of [...this.waiters]) {
      if (w.path === path && this.hitsOf(path).length >= w.count) {
        this.waiters.splice(this.waiters.indexOf(w), 1);
        w.resolve();
      }
    }
    const route = this.routes.get(`${hit.method} ${path}`) ?? this.routes.get(`* ${path}`);
    let reply: TargetReply;
    try {
      reply = route ? await route(hit) : { status: 200, body: { canary: true } };
    } catch (err) {
      reply = { status: 599, body: { error: errorMessage(err) } };
    }
    if (res.destroyed) return;
    const text = typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body ?? null);
    const contentType = typeof reply.body === 'string' ? 'text/plain' : 'application/json';
    res.writeHead(reply.status ?? 200, { 'content-type': contentType, ...reply.headers });
    res.end(text);
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
