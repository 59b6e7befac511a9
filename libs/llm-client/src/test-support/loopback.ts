import type http from 'node:http';
import { HttpTarget } from '@docflow/testing';
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

/** A recording HTTP server on 127.0.0.1 (libs/testing's HttpTarget) for unit tests of the internal clients. */
export class LoopbackServer {
  readonly requests: LoopbackRequest[] = [];

  private constructor(private readonly target: HttpTarget) {}

  static async start(handler: (req: LoopbackRequest) => LoopbackReply | Promise<LoopbackReply>): Promise<LoopbackServer> {
    const self = new LoopbackServer(await HttpTarget.start());
    self.target.otherwise((hit) => {
      const recorded: LoopbackRequest = { method: hit.method, path: hit.path, query: new URLSearchParams(hit.query), headers: hit.headers, body: hit.json, connection: hit.connection };
      self.requests.push(recorded);
      return handler(recorded);
    });
    return self;
  }

  get url(): string {
    return this.target.url('');
  }

  get connectionCount(): number {
    return this.target.connectionCount;
  }

  stop(): Promise<void> {
    return this.target.stop();
  }
}
