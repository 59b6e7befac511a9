import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** A file a LoopbackFileServer serves. */
export interface ServedFile {
  contentType: string;
  bytes: Buffer;
}

/** Serves binary files on 127.0.0.1 (what HttpTarget's text bodies cannot): the file_urls of LLM calls in tests. */
export class LoopbackFileServer {
  readonly files = new Map<string, ServedFile>();
  readonly hits: string[] = [];

  private constructor(private readonly server: http.Server) {}

  static async start(): Promise<LoopbackFileServer> {
    const holder: { self?: LoopbackFileServer } = {};
    const server = http.createServer((req, res) => {
      const path = (req.url ?? '/').split('?')[0] ?? '/';
      holder.self?.hits.push(path);
      const file = holder.self?.files.get(path);
      if (!file) {
        res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
        return;
      }
      res.writeHead(200, { 'content-type': file.contentType, 'content-length': String(file.bytes.length) }).end(file.bytes);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    holder.self = new LoopbackFileServer(server);
    return holder.self;
  }

  get hostPort(): string {
    return `127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  url(path: string): string {
    return `http://${this.hostPort}${path}`;
  }

  serve(path: string, contentType: string, bytes: Buffer): string {
    this.files.set(path, { contentType, bytes });
    return this.url(path);
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
