import request from 'supertest';
import { RELAY_QUEUES, ResultMessage } from '@docflow/contracts';
import { Broker } from '@docflow/messaging';
import { Lifecycle } from '@docflow/service-kit';
import { createTestVhost, TestVhost } from '@docflow/testing';
import { RAG_INDEX_QUEUE } from './rag';
import { startPublicApi, type StartedPublicApi } from './server';
import { closedPortUrl, FakeRouter } from './test-support/fake-router';
import { openTestBed, recordingLogger, TestBed, testConfig } from './test-support/test-app';
import { type Actors, createActors } from './workflows/executions/test-support/actors';
import { ExecutionApi, executionEnv, ROUTER_KEY } from './workflows/executions/test-support/execution-api';

let bed: TestBed;
let vhost: TestVhost;
let router: FakeRouter;
let broker: Broker;
let actors: Actors;
const logger = recordingLogger();
const stops: Lifecycle[] = [];

/** One public API process in the given roles, on this file's database and vhost, listening (if at all) on `url`'s port. */
async function startProcess(roles: string, url: string): Promise<StartedPublicApi> {
  const env = executionEnv(router.url, { DATABASE_URL: bed.db.url, AMQP_URL: vhost.url, OUTBOX_DIR: bed.outboxDir, HOST: '127.0.0.1', PUBLIC_API_PORT: new URL(url).port, PUBLIC_API_ROLES: roles });
  const lifecycle = new Lifecycle(logger, 5000);
  stops.push(lifecycle);
  return startPublicApi(testConfig(env), logger, lifecycle);
}

async function consumers(queue: string): Promise<number> {
  return (await broker.checkQueue(queue)).consumerCount;
}

/** `read()`'s value once it equals `expected`, or its last value after 10 s (the process connects to RabbitMQ in the background). */
async function settled<T>(read: () => Promise<T>, expected: T): Promise<T> {
  let value = await read();
  for (let attempt = 0; attempt < 100 && value !== expected; attempt++) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    value = await read();
  }
  return value;
}

beforeAll(async () => {
  bed = await openTestBed();
  vhost = await createTestVhost('docflow_public_api_roles');
  router = await FakeRouter.start(ROUTER_KEY);
  actors = await createActors(bed.database);
  broker = Broker.connect({ url: vhost.url, logger, name: 'public-api-roles-test' });
  await broker.ready(15000);
  await broker.assertWorkQueue(RELAY_QUEUES.publicApiResults);
  await broker.assertWorkQueue(RAG_INDEX_QUEUE);
});

afterAll(async () => {
  for (const lifecycle of stops.reverse()) await lifecycle.shutdown();
  await broker?.close(2000);
  await vhost?.drop();
  await router?.close();
  await bed?.close();
});

describe('PUBLIC_API_ROLES', () => {
  let apiUrl: string;
  let executionId: number;

  it('api alone serves HTTP and consumes nothing', async () => {
    apiUrl = await closedPortUrl();
    const started = await startProcess('api', apiUrl);
    expect(started.server).toBeDefined();
    const res = await request(apiUrl).get('/api/openapi.json');
    expect(res.status).toBe(200);
    executionId = await new ExecutionApi(started.api.app).started(actors.alice);
    // Given time to subscribe, as the workers process below is: still no consumer.
    expect(await settled(() => consumers(RELAY_QUEUES.publicApiResults), 1)).toBe(0);
    expect(await consumers(RAG_INDEX_QUEUE)).toBe(0);
  });

  it('workers alone consume results (applied to the execution the api process shows) and serve no HTTP', async () => {
    const workersUrl = await closedPortUrl();
    const started = await startProcess('workers', workersUrl);
    expect(started.server).toBeUndefined();
    await expect(request(workersUrl).get('/api/openapi.json')).rejects.toThrow(/ECONNREFUSED/);
    expect(await settled(() => consumers(RELAY_QUEUES.publicApiResults), 1)).toBe(1);
    expect(await settled(() => consumers(RAG_INDEX_QUEUE), 1)).toBe(1);

    await broker.publish(RELAY_QUEUES.publicApiResults, ResultMessage, {
      job_id: `wf_${executionId}`,
      execution_id: executionId,
      status: 'completed',
      sequence: 1,
      outputs: { fetch: { ok: true } },
      task_states: { fetch: { status: 'completed' } },
    } as ResultMessage);
    const status = async () => {
      const res = await request(apiUrl).get(`/api/workflow-executions/${executionId}/status`).set('Authorization', actors.alice.auth);
      return (res.body as { data: { status: string } }).data.status;
    };
    expect(await settled(status, 'completed')).toBe('completed');
  });
});
