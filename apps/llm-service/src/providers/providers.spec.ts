import { anthropicMessage, openAiCompletion, recordingClock, startStubServer, StubServer } from '../testing/stub-server';
import { AnthropicProvider } from './anthropic.provider';
import { OpenAiProvider } from './openai.provider';
import { LlmProviderError, LlmUnavailableError } from './provider';

const KEY = 'sk-test-secret-key-123456';
const retry = { maxRetries: 2, baseMs: 100, maxWaitMs: 20000 };

describe('OpenAiProvider against a loopback chat-completions server', () => {
  let stub: StubServer | undefined;
  afterEach(async () => {
    await stub?.close();
    stub = undefined;
  });

  function provider(url: string, clock = recordingClock(), timeoutMs = 5000): OpenAiProvider {
    return new OpenAiProvider({ baseUrl: `${url}/v1`, apiKey: KEY, model: 'gpt-4o-mini', timeoutMs, retry, clock });
  }

  it('posts messages, model, temperature, max_tokens, tools and JSON mode, and maps tool calls', async () => {
    const toolCalls = [{ id: 'call_1', type: 'function', function: { name: 'lookup', arguments: '{"id":7}' } }];
    stub = await startStubServer(() => ({ status: 200, body: openAiCompletion(null, { prompt: 30, completion: 4, toolCalls }) }));
    const res = await provider(stub.url).chat({
      messages: [
        { role: 'system', content: 'Answer in JSON.' },
        { role: 'user', content: 'Find 7' },
      ],
      temperature: 0.2,
      maxTokens: 100,
      tools: [{ type: 'function', function: { name: 'lookup', parameters: { type: 'object' } } }],
      toolChoice: 'auto',
      jsonMode: true,
    });
    const [sent] = stub.requests;
    expect(sent).toMatchObject({ method: 'POST', path: '/v1/chat/completions' });
    expect(sent!.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(sent!.body).toEqual({
      model: 'gpt-4o-mini',
      messages: [
        { role: 'system', content: 'Answer in JSON.' },
        { role: 'user', content: 'Find 7' },
      ],
      temperature: 0.2,
      max_tokens: 100,
      tools: [{ type: 'function', function: { name: 'lookup', parameters: { type: 'object' } } }],
      tool_choice: 'auto',
      response_format: { type: 'json_object' },
    });
    expect(res).toEqual({ content: '', model: 'gpt-4o-mini', usage: { prompt_tokens: 30, completion_tokens: 4 }, tool_calls: toolCalls });
  });

  it('retries a 429 after its Retry-After and a 500 after backoff, then succeeds', async () => {
    const replies = [
      { status: 429, body: { error: { message: 'slow down' } }, headers: { 'retry-after': '3' } },
      { status: 500, body: { error: { message: 'boom' } } },
      { status: 200, body: openAiCompletion('ok') },
    ];
    stub = await startStubServer((_req, i) => replies[i]!);
    const clock = recordingClock();
    const res = await provider(stub.url, clock).chat({ messages: [{ role: 'user', content: 'hi' }] });
    expect(res.content).toBe('ok');
    expect(stub.requests).toHaveLength(3);
    // Retry-After: 3 s; then base 100 * 2^1 + jitter 0.5 * 100.
    expect(clock.sleeps).toEqual([3000, 250]);
  });

  it('gives 503 llm_service_unavailable with retry_after when retries are exhausted', async () => {
    stub = await startStubServer(() => ({ status: 503, body: { error: { message: 'overloaded' } } }));
    const clock = recordingClock();
    const err = await provider(stub.url, clock)
      .chat({ messages: [{ role: 'user', content: 'hi' }] })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LlmUnavailableError);
    expect(err).toMatchObject({ status: 503, code: 'llm_service_unavailable', details: { retry_after: 1, provider: 'openai' } });
    expect(stub.requests).toHaveLength(3);
    expect(clock.sleeps).toEqual([150, 250]);
  });

  it('stops at once when Retry-After is longer than the service waits, and reports it', async () => {
    stub = await startStubServer(() => ({ status: 429, body: {}, headers: { 'retry-after': '120' } }));
    const err = await provider(stub.url)
      .chat({ messages: [{ role: 'user', content: 'hi' }] })
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ status: 503, details: { retry_after: 120, provider: 'openai' } });
    expect(stub.requests).toHaveLength(1);
  });

  it('does not retry a 400 and gives 502 llm_provider_error without echoing the key', async () => {
    stub = await startStubServer(() => ({ status: 400, body: { error: { message: `Invalid model for key ${KEY}` } } }));
    const err = await provider(stub.url)
      .chat({ messages: [{ role: 'user', content: 'hi' }] })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LlmProviderError);
    expect(err).toMatchObject({ status: 502, code: 'llm_provider_error', details: { provider: 'openai', provider_status: 400 } });
    expect((err as Error).message).toContain('Invalid model for key [redacted]');
    expect((err as Error).message).not.toContain(KEY);
    expect(stub.requests).toHaveLength(1);
  });

  it('retries timeouts and connection errors', async () => {
    stub = await startStubServer(() => ({ status: 200, hang: true }));
    const timedOut = await provider(stub.url, recordingClock(), 150)
      .chat({ messages: [{ role: 'user', content: 'hi' }] })
      .catch((e: unknown) => e);
    expect(timedOut).toMatchObject({ status: 503, code: 'llm_service_unavailable' });
    expect((timedOut as Error).message).toContain('no answer within 150 ms');
    expect(stub.requests).toHaveLength(3);

    const closed = await startStubServer(() => ({ status: 200 }));
    await closed.close();
    const refused = await provider(closed.url)
      .chat({ messages: [{ role: 'user', content: 'hi' }] })
      .catch((e: unknown) => e);
    expect(refused).toMatchObject({ status: 503, details: { provider: 'openai' } });
    expect((refused as Error).message).toContain('connection error');
  });

  it('posts embeddings and returns them in input order', async () => {
    stub = await startStubServer(() => ({
      status: 200,
      body: {
        model: 'text-embedding-3-small',
        data: [
          { index: 1, embedding: [0, 1] },
          { index: 0, embedding: [1, 0] },
        ],
        usage: { prompt_tokens: 6, total_tokens: 6 },
      },
    }));
    const res = await provider(stub.url).embed(['a', 'b']);
    expect(stub.requests[0]).toMatchObject({ path: '/v1/embeddings', body: { model: 'text-embedding-3-small', input: ['a', 'b'] } });
    expect(res).toEqual({
      embeddings: [
        [1, 0],
        [0, 1],
      ],
      model: 'text-embedding-3-small',
      usage: { prompt_tokens: 6, completion_tokens: 0 },
    });
  });
});

describe('AnthropicProvider against a loopback Messages server', () => {
  let stub: StubServer | undefined;
  afterEach(async () => {
    await stub?.close();
    stub = undefined;
  });

  it('sends the key and version headers, the system prompt apart and max_tokens, and maps tool_use to tool_calls', async () => {
    stub = await startStubServer(() => ({
      status: 200,
      body: anthropicMessage(
        [
          { type: 'text', text: 'Looking it up.' },
          { type: 'tool_use', id: 'toolu_1', name: 'lookup', input: { id: 7 } },
        ],
        { input: 40, output: 9 },
      ),
    }));
    const provider = new AnthropicProvider({ baseUrl: `${stub.url}/v1`, apiKey: KEY, timeoutMs: 5000, retry, clock: recordingClock() });
    const res = await provider.chat({
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Find 7' },
        { role: 'assistant', content: '', tool_calls: [{ id: 'toolu_0', type: 'function', function: { name: 'lookup', arguments: '{"id":6}' } }] },
        { role: 'tool', tool_call_id: 'toolu_0', content: 'not found' },
      ],
      tools: [{ type: 'function', function: { name: 'lookup', description: 'Find a record', parameters: { type: 'object', properties: { id: { type: 'number' } } } } }],
      toolChoice: 'required',
    });
    const [sent] = stub.requests;
    expect(sent!.path).toBe('/v1/messages');
    expect(sent!.headers['x-api-key']).toBe(KEY);
    expect(sent!.headers['anthropic-version']).toBe('2023-06-01');
    expect(sent!.body).toEqual({
      model: 'claude-3-5-haiku-latest',
      max_tokens: 4096,
      system: 'Be brief.',
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'Find 7' }] },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_0', name: 'lookup', input: { id: 6 } }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_0', content: 'not found' }] },
      ],
      tools: [{ name: 'lookup', description: 'Find a record', input_schema: { type: 'object', properties: { id: { type: 'number' } } } }],
      tool_choice: { type: 'any' },
    });
    expect(res).toEqual({
      content: 'Looking it up.',
      model: 'claude-3-5-haiku-20241022',
      usage: { prompt_tokens: 40, completion_tokens: 9 },
      tool_calls: [{ id: 'toolu_1', type: 'function', function: { name: 'lookup', arguments: '{"id":7}' } }],
    });
  });

  it('reads the error message of a refused request', async () => {
    stub = await startStubServer(() => ({ status: 401, body: { type: 'error', error: { type: 'authentication_error', message: 'invalid x-api-key' } } }));
    const provider = new AnthropicProvider({ baseUrl: stub.url, apiKey: KEY, timeoutMs: 5000, retry, clock: recordingClock() });
    const err = await provider.chat({ messages: [{ role: 'user', content: 'hi' }] }).catch((e: unknown) => e);
    expect(err).toMatchObject({ status: 502, code: 'llm_provider_error', details: { provider: 'anthropic', provider_status: 401 } });
    expect((err as Error).message).toContain('invalid x-api-key');
  });
});
