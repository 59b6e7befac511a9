import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { errorMessage } from '@docflow/service-kit';

export interface ApiHit {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: http.IncomingHttpHeaders;
  body: unknown;
  params: string[];
}

export interface ApiReply {
  status?: number;
  body?: unknown;
}

type Route = { method: string; pattern: RegExp; handler: (hit: ApiHit) => ApiReply | Promise<ApiReply> };

/** A loopback JSON API for tests: routes by method and path pattern (capture groups become `params`), records every request. */
export class LoopbackApi {
  readonly hits: ApiHit[] = [];
  private routes: Route[] = [];

  private constructor(private readonly server: http.Server) {}

  static async start(): Promise<LoopbackApi> {
    const holder: { self?: LoopbackApi } = {};
    const server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        void holder.self?.serve(req, Buffer.concat(chunks).toString('utf8'), res);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    holder.self = new LoopbackApi(server);
    return holder.self;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** Adds a route; a later route for the same method and pattern source replaces the earlier one. */
  on(method: string, pattern: RegExp, handler: Route['handler']): this {
    this.routes = this.routes.filter((r) => !(r.method === method && r.pattern.source === pattern.source));
    this.routes.push({ method, pattern, handler });
    return this;
  }

  hitsOf(pattern: RegExp): ApiHit[] {
    return this.hits.filter((h) => pattern.test(h.path));
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async serve(req: http.IncomingMessage, raw: string, res: http.ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    let body: unknown = raw;
    try {
      body = raw ? (JSON.parse(raw) as unknown) : undefined;
    } catch {
      body = raw;
    }
    const method = req.method ?? 'GET';
    const route = this.routes.find((r) => r.method === method && r.pattern.test(url.pathname));
    const params = route ? (route.pattern.exec(url.pathname) ?? []).slice(1).map(String) : [];
    const hit: ApiHit = { method, path: url.pathname, query: url.searchParams, headers: req.headers, body, params };
    this.hits.push(hit);
    let reply: ApiReply;
    try {
      reply = route ? await route.handler(hit) : { status: 404, body: { error: 'not_found', message: `no route ${method} ${url.pathname}` } };
    } catch (err) {
      reply = { status: 500, body: { error: 'internal_error', message: errorMessage(err) } };
    }
    res.writeHead(reply.status ?? 200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(reply.body ?? null));
  }
}
