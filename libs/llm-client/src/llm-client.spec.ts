import net from 'node:net';
import { runWithContext } from '@docflow/service-kit';
import { LlmServiceError } from './errors';
import { createLlmClient, type LlmClient } from './llm-client';
import { type LoopbackReply, type LoopbackRequest, LoopbackServer } from './test-support/loopback';

const KEY = 'svc-key-for-tests';

describe('createLlmClient', () => {
  let server: LoopbackServer;
  let reply: (req: LoopbackRequest) => LoopbackReply;
  let client: LlmClient;

  beforeAll(async () => {
    server = await LoopbackServer.start((req) => reply(req));
  });

  beforeEach(() => {
    server.requests.length = 0;
    client = createLlmClient({ baseUrl: `${server.url}/`, serviceKey: KEY, timeoutMs: 2000 });
  });

  afterEach(() => client.close());
  afterAll(() => server.stop());

  it('posts an extract with the service key and correlation id, and returns content, usage and cost', async () => {
    reply = () => ({ body: { content: { total: 42 }, model: 'gpt-x', provider: 'openai', cost: 0.0125, usage: { prompt_tokens: 100, completion_tokens: 20, total_tokens: 120 } } });
    const res = await runWithContext({ correlationId: 'corr-123' }, () =>
      client.extract({ content: 'Total: 42', prompt_template: 'Extract the total as JSON', task_hint: 'extract', output_format: 'json', model_type: 'provider_b' }),
    );
    expect(res).toEqual({ content: { total: 42 }, model: 'gpt-x', provider: 'openai', cost: 0.0125, usage: { prompt_tokens: 100, completion_tokens: 20, total_tokens: 120 } });
    const req = server.requests[0];
    expect(req?.method).toBe('POST');
    expect(req?.path).toBe('/api/v1/extract');
    expect(req?.headers['x-service-key']).toBe(KEY);
    expect(req?.headers['x-correlation-id']).toBe('corr-123');
    expect(req?.body).toEqual({ content: 'Total: 42', prompt_template: 'Extract the total as JSON', task_hint: 'extract', output_format: 'json', model_type: 'provider_b' });
  });

  it('fills usage from its parts when the service sends no total, and zeros when it sends none', async () => {
    reply = () => ({ body: { content: 'a', model: 'm', provider: 'local', cost: 0, usage: { prompt_tokens: 7, completion_tokens: 3 } } });
    expect((await client.extract({ messages: [{ role: 'user', content: 'hi' }] })).usage).toEqual({ prompt_tokens: 7, completion_tokens: 3, total_tokens: 10 });
    reply = () => ({ body: { content: 'a', model: 'm', provider: 'local', cost: 0 } });
    expect((await client.extract({ messages: [{ role: 'user', content: 'hi' }] })).usage).toEqual({ prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 });
  });

  it('turns 503 llm_service_unavailable into a retryable error with retry_after', async () => {
    reply = () => ({ status: 503, body: { error: 'llm_service_unavailable', message: 'openai is unavailable after 3 attempt(s): HTTP 500', details: { retry_after: 7, provider: 'openai' } } });
    const err = await client.extract({ content: 'x', prompt_template: 'y' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LlmServiceError);
    const e = err as LlmServiceError;
    expect([e.code, e.status, e.retryable, e.retryAfterSeconds]).toEqual(['llm_service_unavailable', 503, true, 7]);
    expect(e.message).toContain('openai is unavailable');
  });

  it('marks 422 and 400 answers as not retryable, keeping the code and details', async () => {
    reply = () => ({ status: 422, body: { error: 'validation_error', message: 'Send either a non-empty messages array or content plus prompt_template', details: { missing: ['messages'] } } });
    const e422 = (await client.extract({}).catch((e: unknown) => e)) as LlmServiceError;
    expect([e422.code, e422.status, e422.retryable, e422.details]).toEqual(['validation_error', 422, false, { missing: ['messages'] }]);
    reply = () => ({ status: 400, body: { error: 'validation_error', message: 'Invalid extract request', details: { errors: ['model_type must be one of ...'] } } });
    const e400 = (await client.extract({ content: 'x', prompt_template: 'y' }).catch((e: unknown) => e)) as LlmServiceError;
    expect([e400.code, e400.status, e400.retryable]).toEqual(['validation_error', 400, false]);
  });

  it('refuses an answer without content, provider or model', async () => {
    reply = () => ({ body: { model: 'm', provider: 'openai', cost: 0 } });
    const e = (await client.extract({ content: 'x', prompt_template: 'y' }).catch((err: unknown) => err)) as LlmServiceError;
    expect([e.code, e.retryable]).toEqual(['bad_response', false]);
  });

  it('reuses one keep-alive connection for consecutive calls', async () => {
    reply = () => ({ body: { content: 'ok', model: 'm', provider: 'local', cost: 0 } });
    const before = server.connectionCount;
    for (let i = 0; i < 3; i++) await client.extract({ content: 'x', prompt_template: 'y' });
    expect(server.connectionCount - before).toBe(1);
    expect(new Set(server.requests.map((r) => r.connection)).size).toBe(1);
  });

  it('tries once more on a fresh socket when the connection is reset before any answer', async () => {
    let n = 0;
    reply = () => (++n === 1 ? { reset: true } : { body: { content: 'second', model: 'm', provider: 'local', cost: 0 } });
    const res = await client.extract({ content: 'x', prompt_template: 'y' });
    expect(res.content).toBe('second');
    expect(server.requests).toHaveLength(2);
  });

  it('reports a timeout and a cancelled call with their own codes', async () => {
    reply = () => ({ hang: true });
    const timedOut = (await client.extract({ content: 'x', prompt_template: 'y' }, { timeoutMs: 50 }).catch((e: unknown) => e)) as LlmServiceError;
    expect([timedOut.code, timedOut.retryable]).toEqual(['timeout', true]);
    let arrived: () => void = () => undefined;
    const received = new Promise<void>((resolve) => (arrived = resolve));
    reply = () => (arrived(), { hang: true });
    const controller = new AbortController();
    const pending = client.extract({ content: 'x', prompt_template: 'y' }, { signal: controller.signal }).catch((e: unknown) => e);
    await received;
    controller.abort();
    const aborted = (await pending) as LlmServiceError;
    expect([aborted.code, aborted.retryable]).toEqual(['aborted', false]);
  });

  it('reports an unreachable service as retryable', async () => {
    const port = await new Promise<number>((resolve) => {
      const probe = net.createServer();
      probe.listen(0, '127.0.0.1', () => {
        const p = (probe.address() as net.AddressInfo).port;
        probe.close(() => resolve(p));
      });
    });
    const offline = createLlmClient({ baseUrl: `http://127.0.0.1:${port}`, serviceKey: KEY, timeoutMs: 2000 });
    const e = (await offline.extract({ content: 'x', prompt_template: 'y' }).catch((err: unknown) => err)) as LlmServiceError;
    offline.close();
    expect([e.code, e.retryable]).toEqual(['unreachable', true]);
    expect(e.message).toContain(`127.0.0.1:${port}`);
  });

  it('chats and embeds', async () => {
    reply = (req) =>
      req.path === '/api/v1/chat'
        ? { body: { message: { role: 'assistant', content: 'Hello' }, model: 'm', provider: 'anthropic', usage: { prompt_tokens: 5, completion_tokens: 1, total_tokens: 6 }, cost: 0.001 } }
        : {
            body: {
              embeddings: [
                [0.1, 0.2],
                [0.3, 0.4],
              ],
              model: 'emb',
              provider: 'openai',
              dimensions: 2,
              usage: { prompt_tokens: 4, total_tokens: 4 },
              cost: 0.0001,
            },
          };
    const chat = await client.chat({ messages: [{ role: 'user', content: 'Hi' }], task_hint: 'chat' });
    expect(chat).toEqual({ message: { role: 'assistant', content: 'Hello' }, model: 'm', provider: 'anthropic', usage: { prompt_tokens: 5, completion_tokens: 1, total_tokens: 6 }, cost: 0.001 });
    const emb = await client.embeddings(['a', 'b'], { modelType: 'provider_c' });
    expect(emb).toEqual({
      embeddings: [
        [0.1, 0.2],
        [0.3, 0.4],
      ],
      model: 'emb',
      provider: 'openai',
      dimensions: 2,
      usage: { prompt_tokens: 4, completion_tokens: 0, total_tokens: 4 },
      cost: 0.0001,
    });
    expect(server.requests[1]?.body).toEqual({ input: ['a', 'b'], model_type: 'provider_c' });
  });

  it('refuses embeddings whose count does not match the input', async () => {
    reply = () => ({ body: { embeddings: [[0.1]], model: 'emb', provider: 'local', dimensions: 1, cost: 0 } });
    const e = (await client.embeddings(['a', 'b']).catch((err: unknown) => err)) as LlmServiceError;
    expect(e.code).toBe('bad_response');
  });
});
