import type { OutboundClient, OutboundRequestOptions } from '@docflow/outbound-http';
import { silentLogger } from '@docflow/service-kit';
import type { NodeContext } from './executor';
import { createRestApiExecutor } from './rest-api/rest-api.executor';
import { createWaitExecutor } from './wait.executor';

function ctx(taskType: string, config: Record<string, unknown>): NodeContext {
  return {
    executionKey: 'execution:1',
    jobId: 'wf_1',
    nodeId: 'n',
    nodeType: 'task',
    taskType,
    label: 'N',
    config,
    rawConfig: config,
    scope: {},
    inputs: {},
    signal: new AbortController().signal,
    logger: silentLogger,
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
  // Any header a node sets may hold a secret (a template over an input, say): none of them follows a
  // redirect to another origin, except the few that describe the exchange.
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

describe('rest_api_task with a credential_id (spec 2.7 rule 3)', () => {
  const opened: { executionId: number; jobId: string; nodeId: string }[] = [];
  const credentials = {
    fieldsFor: async (node: { executionId: number; jobId: string; nodeId: string }) => {
      opened.push({ executionId: node.executionId, jobId: node.jobId, nodeId: node.nodeId });
      return { api_key: 'sk-live', accept: 'application/vnd.secret+json' };
    },
  };

  it('opens the credential as the node runs: its fields resolve first, the scope the rest, and every header it filled is sensitive', async () => {
    const { client, requests } = recordingClient();
    const rawConfig = {
      url: 'https://api.example/{{path}}',
      headers: { 'X-Api-Key': '{{api_key}}', Accept: '{{credential.accept}}', 'X-Trace': '{{path}}' },
      credential_id: 4,
    };
    // An input named like a field does not replace the credential's value.
    const node = { ...ctx('rest_api_task', rawConfig), executionId: 12, scope: { path: 'items', api_key: 'from-input' } };
    await createRestApiExecutor({ client, defaultTimeoutSeconds: 30, credentials })(node);
    expect(opened).toEqual([{ executionId: 12, jobId: 'wf_1', nodeId: 'n' }]);
    expect(requests[0]).toMatchObject({ url: 'https://api.example/items', headers: { 'X-Api-Key': 'sk-live', Accept: 'application/vnd.secret+json', 'X-Trace': 'items' } });
    expect(requests[0]?.sensitiveHeaders).toEqual(expect.arrayContaining(['X-Api-Key', 'Accept', 'X-Trace']));
  });

  it('fails as configuration_error without an execution or a credential source', async () => {
    const { client } = recordingClient();
    const config = { url: 'https://api.example/x', credential_id: 4 };
    await expect(createRestApiExecutor({ client, defaultTimeoutSeconds: 30, credentials })(ctx('rest_api_task', config))).rejects.toMatchObject({ errorType: 'configuration_error' });
    await expect(createRestApiExecutor({ client, defaultTimeoutSeconds: 30 })({ ...ctx('rest_api_task', config), executionId: 3 })).rejects.toMatchObject({ errorType: 'configuration_error' });
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
