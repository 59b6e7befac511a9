import amqp from 'amqplib';
import { randomUUID } from 'node:crypto';
import { eventually, login, SERVICES, Stack } from './support/stack';
import { queueDepth, startBroker, stopBroker } from './support/rabbit';

jest.setTimeout(180000);

let stack: Stack;

beforeAll(async () => {
  stack = await Stack.start();
});

afterAll(async () => {
  await stack?.stop();
});

const routerHeaders = () => ({ 'content-type': 'application/json', 'x-api-key': stack.env.ROUTER_API_KEY! });

async function postJob(jobId: string, nodes: object[] = [], edges: object[] = []): Promise<Response> {
  return fetch(`${stack.url('router')}/api/v1/jobs`, {
    method: 'POST',
    headers: routerHeaders(),
    body: JSON.stringify({
      job_id: jobId,
      job_type: 'task_based_workflow',
      payload: {
        workflow_definition: {
          nodes: nodes.length
            ? nodes
            : [
                { id: 'start', type: 'start', data: { label: 'Start', task_type: 'custom_task', config: {} } },
                { id: 'end', type: 'end', data: { label: 'End', task_type: 'custom_task', config: {} } },
              ],
          edges: edges.length ? edges : [{ id: 'e1', source: 'start', target: 'end' }],
        },
        inputs: { hello: 'world' },
      },
    }),
  });
}

async function jobStatus(jobId: string): Promise<{ status: string } & Record<string, unknown>> {
  const res = await fetch(`${stack.url('router')}/api/v1/jobs/${jobId}`, { headers: routerHeaders() });
  expect(res.status).toBe(200);
  return (await res.json()) as { status: string };
}

async function publishRaw(queue: string, body: string): Promise<void> {
  const conn = await amqp.connect(stack.vhost.url);
  try {
    const ch = await conn.createConfirmChannel();
    ch.sendToQueue(queue, Buffer.from(body), { persistent: true, contentType: 'application/json' });
    await ch.waitForConfirms();
    await ch.close();
  } finally {
    await conn.close();
  }
}

describe('foundation, end to end', () => {
  it('starts all six services healthy', async () => {
    for (const s of SERVICES) expect(await stack.health(s)).toBe(204);
    const apiAlias = await fetch(`${stack.api}/_health`);
    expect(apiAlias.status).toBe(204);
  });

  it('serves Prometheus metrics on every service', async () => {
    for (const s of SERVICES) {
      const res = await fetch(`${stack.url(s)}/metrics`);
      expect(res.status).toBe(200);
      expect(await res.text()).toContain('process_cpu_user_seconds_total');
    }
  });

  it('rejects a protected route without a token with the spec error body', async () => {
    const res = await fetch(`${stack.api}/users/me`);
    expect(res.status).toBe(401);
    const body = (await res.json()) as { error: { status: number; name: string; message: string } };
    expect(body.error.status).toBe(401);
    expect(body.error.name).toBe('UnauthorizedError');
    expect(typeof body.error.message).toBe('string');
  });

  it('logs alice in, and a logged-out token stays refused across a restart', async () => {
    const jwt = await login(stack, 'alice@docflow.local', 'Alice#Pass123');
    const me = await fetch(`${stack.api}/users/me`, { headers: { authorization: `Bearer ${jwt}` } });
    expect(me.status).toBe(200);
    expect(((await me.json()) as { username: string }).username).toBe('alice');

    const out = await fetch(`${stack.api}/auth/logout`, { method: 'POST', headers: { authorization: `Bearer ${jwt}` } });
    expect(out.status).toBe(200);
    const again = await fetch(`${stack.api}/users/me`, { headers: { authorization: `Bearer ${jwt}` } });
    expect(again.status).toBe(401);

    await stack.restart('public-api');
    const afterRestart = await fetch(`${stack.api}/users/me`, { headers: { authorization: `Bearer ${jwt}` } });
    expect(afterRestart.status).toBe(401);
  });

  it('queues a job in workflow_queue while no processor runs, and runs it once one starts', async () => {
    await stack.stopService('workflow-processor');
    const jobId = `e2e_${randomUUID()}`;
    const res = await postJob(jobId);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ job_id: jobId, success: true });
    expect((await jobStatus(jobId)).status).toBe('queued');
    expect(await queueDepth(stack.vhost.url, 'workflow_queue')).toBe(1);

    const duplicate = await postJob(jobId);
    expect(duplicate.status).toBe(409);

    stack.spawn('workflow-processor');
    await stack.waitForHealth('workflow-processor', 204);
    const done = await eventually(
      async () => {
        const s = await jobStatus(jobId);
        return s.status === 'completed' ? s : undefined;
      },
      20000,
      `job ${jobId} to complete`,
    );
    expect(done.metadata).toMatchObject({ status: 'completed' });
  });

  it('updates a job status from a results message published on results_queue', async () => {
    await stack.stopService('workflow-processor');
    try {
      const jobId = `e2e_${randomUUID()}`;
      expect((await postJob(jobId)).status).toBe(200);
      await publishRaw('results_queue', JSON.stringify({ job_id: jobId, status: 'failed', error: 'injected by the test', outputs: {}, task_states: {} }));
      const failed = await eventually(
        async () => {
          const s = await jobStatus(jobId);
          return s.status === 'failed' ? s : undefined;
        },
        15000,
        'results message to be applied',
      );
      expect(failed.error).toBe('injected by the test');
    } finally {
      stack.spawn('workflow-processor');
      await stack.waitForHealth('workflow-processor', 204);
    }
  });

  it('dead-letters a message that fails contract validation and keeps consuming', async () => {
    await publishRaw('workflow_queue', JSON.stringify({ version: 1, job_id: 42, job_type: 'nonsense' }));
    await publishRaw('workflow_queue', '{not json');
    await eventually(async () => ((await queueDepth(stack.vhost.url, 'workflow_queue.dlq')) === 2 ? true : undefined), 15000, 'two messages in workflow_queue.dlq');
    const jobId = `e2e_${randomUUID()}`;
    expect((await postJob(jobId)).status).toBe(200);
    await eventually(async () => ((await jobStatus(jobId)).status === 'completed' ? true : undefined), 15000, 'the next job to complete');
    expect(await stack.health('workflow-processor')).toBe(204);
  });

  it('is unhealthy while a service it calls is down: the LLM service stopped, its callers answer 503 naming it', async () => {
    await stack.stopService('llm-service');
    try {
      for (const caller of ['public-api', 'workflow-processor', 'extraction-processor'] as const) {
        const res = await fetch(`${stack.url(caller)}/_health`);
        expect(res.status).toBe(503);
        const body = (await res.json()) as { failing: { name: string }[] };
        expect(body.failing.map((f) => f.name)).toContain('llm-service');
      }
      expect(await stack.health('router')).toBe(204);
    } finally {
      stack.spawn('llm-service');
    }
    for (const s of SERVICES) await stack.waitForHealth(s, 204, 60000);
  });

  it('rides out a RabbitMQ restart without restarting any service', async () => {
    await stopBroker();
    try {
      await eventually(async () => ((await stack.health('router')) === 503 ? true : undefined), 20000, 'router health 503');
      await eventually(async () => ((await stack.health('workflow-processor')) === 503 ? true : undefined), 20000, 'processor health 503');
      const refused = await postJob(`e2e_${randomUUID()}`);
      expect(refused.status).toBe(503);
    } finally {
      await startBroker();
    }
    for (const s of SERVICES) await stack.waitForHealth(s, 204, 60000);
    const jobId = `e2e_${randomUUID()}`;
    expect((await postJob(jobId)).status).toBe(200);
    await eventually(async () => ((await jobStatus(jobId)).status === 'completed' ? true : undefined), 20000, 'a job after the broker restart');
  });
});
