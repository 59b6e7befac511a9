import http from 'node:http';
import net from 'node:net';
import type { AddressInfo, Socket } from 'node:net';

export interface ReceivedRequest {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export type Handler = (request: ReceivedRequest, response: http.ServerResponse) => void;

/** A loopback HTTP server that records every TCP connection and request it sees. */
export interface TestServer {
  port: number;
  /** TCP connections accepted: zero means no socket ever reached it. */
  connections: number;
  requests: ReceivedRequest[];
  close(): Promise<void>;
}

/** `host` may be any loopback address (127.0.0.2 is a second origin on the same machine). */
export async function startTestServer(handler: Handler = (_request, response) => response.end('ok'), host = '127.0.0.1'): Promise<TestServer> {
  const sockets = new Set<Socket>();
  const requests: ReceivedRequest[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const received = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      requests.push(received);
      handler(received, res);
    });
  });
  const state: TestServer = {
    port: 0,
    connections: 0,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
  server.on('connection', (socket: Socket) => {
    state.connections += 1;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, () => resolve());
  });
  state.port = (server.address() as AddressInfo).port;
  return state;
}

/** A port that nothing listens on (bound, then released). */
export async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/**
 * Makes every outgoing TCP connect throw, so a refusal that regressed into a
 * real connection fails the test instead of reaching 10.x or 169.254.x.
 * Returns the spy to assert it was never called; restore with mockRestore().
 */
export function forbidSocketConnects(): jest.SpyInstance {
  return jest.spyOn(net.Socket.prototype, 'connect').mockImplementation(() => {
    throw new Error('connection attempt observed');
  });
}
