import type { OutboundClient, OutboundRequestOptions } from '@docflow/outbound-http';
import { silentLogger } from '@docflow/service-kit';
import type { NodeContext } from './executor';
import { createRestApiExecutor } from './rest-api/rest-api.executor';
import { createWaitExecutor } from './wait.executor';

function ctx(taskType: string, config: Record<string, unknown>): NodeContext {
  return {
    executionKey: 'execution:1', jobId: 'wf_1', nodeId: 'n', nodeType: 'task', taskType, label: 'N',
    config, rawConfig: config, scope: {}, inputs: {}, signal: new AbortController().signal, logger: silentLogger,
  };
}

function recordingClient(body: unknown = { status: 'completed' }): { client: OutboundClient; requests: OutboundRequestOptions[] } {
  const requests: OutboundRequestOptions[] = [];
  const client: OutboundClient = {
    request: async (options) => {
      requests.push(options);
      return { status: 200, headers: {}, body, text: JSON.stringify(body), url: options.url };
    },
  };
  return { client, requests };
}

describe('outbound executors: headers a node sets', () => {
  // A credential's fields are bound into header values before the processor sees the node, so any
  // header the node sets may hold a secret: none of them follows a redirect to another origin.
  const headers = { 'X-Api-Key': '{{bound secret}}', Authorization: 'Bearer x', Accept: 'application/json', 'Content-Type': 'application/json' };

  it('rest_api_task marks every header but Accept and Content-Type as sensitive', async () => {
    const { client, requests } = recordingClient();
    await createRestApiExecutor({ client, defaultTimeoutSeconds: 30 })(ctx('rest_api_task', { url: 'https://api.example/x', headers }));
    expect(requests[0]?.sensitiveHeaders).toEqual(['X-Api-Key', 'Authorization']);
  });

  it('wait_task does the same for its polls', async () => {
    const { client, requests } = recordingClient();
    await createWaitExecutor({ client, requestTimeoutSeconds: 30 })(ctx('wait_task', { endpoint: 'https://api.example/s', watch_field: 'status', headers }));
    expect(requests[0]?.sensitiveHeaders).toEqual(['X-Api-Key', 'Authorization']);
  });
});

describe('outbound executors: limits on resolved values (issue #13)', () => {
  it('rest_api_task refuses a timeout past its maximum, and caps the default by it', async () => {
    const { client, requests } = recordingClient();
    const run = createRestApiExecutor({ client, defaultTimeoutSeconds: 30, maxTimeoutSeconds: 20 });
    await expect(run(ctx('rest_api_task', { url: 'https://api.example/x', timeout: '21' }))).rejects.toMatchObject({
      errorType: 'configuration_error',
      message: 'timeout must be at most 20 seconds',
    });
    await run(ctx('rest_api_task', { url: 'https://api.example/x' }));
    expect(requests.map((r) => r.timeoutMs)).toEqual([20_000]);
  });

  it('wait_task refuses a poll interval under its minimum and a timeout past its maximum', async () => {
    const { client, requests } = recordingClient();
    const run = createWaitExecutor({ client, requestTimeoutSeconds: 30, minPollIntervalSeconds: 2, maxTimeoutSeconds: 60 });
    const wait = (extra: Record<string, unknown>) => run(ctx('wait_task', { endpoint: 'https://api.example/s', watch_field: 'status', ...extra }));
    await expect(wait({ poll_interval: '0.001' })).rejects.toMatchObject({ errorType: 'configuration_error', message: 'poll_interval must be at least 2 seconds' });
    await expect(wait({ timeout: 61 })).rejects.toMatchObject({ errorType: 'configuration_error', message: 'timeout must be at most 60 seconds' });
    expect(requests).toHaveLength(0);
    await expect(wait({ poll_interval: 2, timeout: 60 })).resolves.toMatchObject({ output: { status: 'success' } });
  });
});
