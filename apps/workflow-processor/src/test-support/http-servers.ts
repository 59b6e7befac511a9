import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Hit {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export interface Reply {
  status?: number;
  body?: unknown;
  headers?: Record<string, string>;
}

export type Route = (hit: Hit) => Reply | Promise<Reply>;

/**
 * A loopback HTTP server for tests: routes by `METHOD /path` (query string
 * ignored; `* /path` for any method), records every request, and lets a test
 * await the n-th hit of a path.
 */
export class TestHttpServer {
  readonly hits: Hit[] = [];
  private readonly routes = new Map<string, Route>();
  private readonly waiters: { path: string; count: number; resolve: () => void }[] = [];

  private constructor(private readonly server: http.Server) {}

  /** Listens on 127.0.0.1, or on `::` (IPv4 and IPv6 loopback alike) for a canary. */
  static async start(host: '127.0.0.1' | '::' = '127.0.0.1'): Promise<TestHttpServer> {
    const holder: { self?: TestHttpServer } = {};
    const server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        void holder.self?.serve(req, Buffer.concat(chunks).toString('utf8'), res);
      });
    });
    await new Promise<void>((resolve) => server.listen({ port: 0, host, ipv6Only: false }, resolve));
    holder.self = new TestHttpServer(server);
    return holder.self;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  /** `http://127.0.0.1:<port><path>` */
  url(path: string): string {
    return `http://127.0.0.1:${this.port}${path}`;
  }

  on(methodAndPath: string, route: Route): this {
    this.routes.set(methodAndPath, route);
    return this;
  }

  hitsOf(path: string): Hit[] {
    return this.hits.filter((h) => h.path === path);
  }

  /** Resolves once `path` was hit `count` times; rejects after `ms`. */
  waitForHits(path: string, count: number, ms = 10000): Promise<void> {
    if (this.hitsOf(path).length >= count) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${path} was not hit ${count} times within ${ms} ms`)), ms);
      this.waiters.push({ path, count, resolve: () => (clearTimeout(timer), resolve()) });
    });
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async serve(req: http.IncomingMessage, body: string, res: http.ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    const hit: Hit = { method: req.method ?? 'GET', path, headers: req.headers, body };
    this.hits.push(hit);
    for (const w of [...this.waiters]) {
      if (w.path === path && this.hitsOf(path).length >= w.count) {
        this.waiters.splice(this.waiters.indexOf(w), 1);
        w.resolve();
      }
    }
    const route = this.routes.get(`${hit.method} ${path}`) ?? this.routes.get(`* ${path}`);
    let reply: Reply;
    try {
      reply = route ? await route(hit) : { status: 200, body: { canary: true } };
    } catch (err) {
      reply = { status: 599, body: { error: err instanceof Error ? err.message : String(err) } };
    }
    if (res.destroyed) return;
    const text = typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body ?? null);
    const contentType = typeof reply.body === 'string' ? 'text/plain' : 'application/json';
    res.writeHead(reply.status ?? 200, { 'content-type': contentType, ...reply.headers });
    res.end(text);
  }
}
