import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface LoopbackRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: http.IncomingHttpHeaders;
  body: unknown;
  /** Which TCP connection carried the request (1, 2, ...). */
  connection: number;
}

export interface LoopbackReply {
  status?: number;
  body?: unknown;
  headers?: Record<string, string>;
  /** Never answer (exercises timeouts); closed when the server stops. */
  hang?: boolean;
  /** Destroy the socket without answering (exercises ECONNRESET). */
  reset?: boolean;
}

/** A recording HTTP server on 127.0.0.1 for unit tests of the internal clients. */
export class LoopbackServer {
  readonly requests: LoopbackRequest[] = [];
  private connections = 0;

  private constructor(private readonly server: http.Server) {}

  static async start(handler: (req: LoopbackRequest) => LoopbackReply | Promise<LoopbackReply>): Promise<LoopbackServer> {
    const holder: { self?: LoopbackServer } = {};
    const ids = new WeakMap<object, number>();
    const server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const self = holder.self;
        if (!self) return;
        const raw = Buffer.concat(chunks).toString('utf8');
        let body: unknown = raw;
        try {
          body = raw ? (JSON.parse(raw) as unknown) : undefined;
        } catch {
          body = raw;
        }
        const url = new URL(req.url ?? '/', 'http://127.0.0.1');
        const recorded: LoopbackRequest = { method: req.method ?? 'GET', path: url.pathname, query: url.searchParams, headers: req.headers, body, connection: ids.get(req.socket) ?? 0 };
        self.requests.push(recorded);
        void Promise.resolve(handler(recorded)).then((reply) => {
          if (reply.hang) return;
          if (reply.reset) {
            req.socket.destroy();
            return;
          }
          const text = typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body ?? null);
          res.writeHead(reply.status ?? 200, { 'content-type': typeof reply.body === 'string' ? 'text/plain' : 'application/json', ...(reply.headers ?? {}) });
          res.end(text);
        });
      });
    });
    server.on('connection', (socket) => {
      const self = holder.self;
      if (self) ids.set(socket, ++self.connections);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    holder.self = new LoopbackServer(server);
    return holder.self;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  get connectionCount(): number {
    return this.connections;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
