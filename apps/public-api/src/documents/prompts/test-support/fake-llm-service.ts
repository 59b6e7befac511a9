import express from 'express';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** One call the fake LLM service received. */
export interface ReceivedExtract {
  body: Record<string, unknown>;
  serviceKey: string | undefined;
}

/**
 * `answer`: 200 with `content` (a provider `fake`); `fail`: 500 with the
 * internal error body; `hang`: never answers (until close), for timeouts.
 */
export type FakeLlmMode = 'answer' | 'fail' | 'hang';

/** A loopback server speaking the LLM service's POST /api/v1/extract (spec 4.16). */
export class FakeLlmService {
  readonly calls: ReceivedExtract[] = [];
  mode: FakeLlmMode = 'answer';
  content: unknown = {};
  private server: http.Server | undefined;

  static async start(): Promise<FakeLlmService> {
    const fake = new FakeLlmService();
    const app = express();
    app.use(express.json({ limit: '5mb' }));
    app.post('/api/v1/extract', (req, res) => {
      fake.calls.push({ body: req.body as Record<string, unknown>, serviceKey: req.header('x-service-key') });
      switch (fake.mode) {
        case 'answer':
          res.json({ content: fake.content, model: 'fake-model', provider: 'fake', cost: 0.0012 });
          return;
        case 'fail':
          res.status(500).json({ error: 'internal_error', message: 'provider exploded', details: {} });
          return;
        case 'hang':
          return; // the response stays open until close() drops the connection
        default: {
          const never: never = fake.mode;
          throw new Error(`unknown mode ${String(never)}`);
        }
      }
    });
    fake.server = http.createServer(app);
    await new Promise<void>((resolve) => fake.server?.listen(0, '127.0.0.1', resolve));
    return fake;
  }

  get url(): string {
    const address = this.server?.address() as AddressInfo | null;
    if (!address) throw new Error('fake LLM service is not listening');
    return `http://127.0.0.1:${address.port}`;
  }

  async close(): Promise<void> {
    const server = this.server;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
