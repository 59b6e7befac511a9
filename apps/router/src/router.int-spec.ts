import type { JobStatus, ResultStatus } from '@docflow/contracts';
import type express from 'express';
import request from 'supertest';
import { JobMessageV1, JobRequest, JobType, QUEUES, RELAY_QUEUES, RESULT_DELIVERED_TO_HEADER, ResultMessage } from '@docflow/contracts';
import { Broker, BrokerUnavailableError, declareResultsTopology, MessageMeta, ResultPublisher, resultMessage } from '@docflow/messaging';
import { closeDatabase, databaseHealthCheck, openDatabase } from '@docflow/persistence';
import { Metrics, runWithContext, silentLogger } from '@docflow/service-kit';
import { createTestDatabase, createTestVhost, TestDatabase, TestVhost } from '@docflow/testing';
import { createApp } from './app';
import { routerDatabaseOptions } from './data-source';
import { JobsService } from './jobs/jobs.service';
import { RouterJobsRepository } from './jobs/router-jobs.repository';
import { createRouterMetrics, RouterMetrics } from './metrics';
import { startResultsConsumer } from './results/results.consumer';
import { declareRouterQueues } from './topology';

jest.setTimeout(30000);

const API_KEY = 'router-test-key-0123456789';
const TOKEN = 'eyJhbGciOiJIUzI1NiJ9.caller-jwt.signature';
const WF_PAYLOAD = { workflow_definition: { nodes: [], edges: [] }, inputs: {} };

type Received<T> = { msg: T; meta: MessageMeta };

/** Collects messages by key and lets a test await one, bounded. */
class Inbox<T> {
  private readonly items = new Map<string, Received<T>>();
  private readonly waiters = new Map<string, (r: Received<T>) => void>();
  private readonly counts = new Map<string, number>();

  put(key: string, r: Received<T>): void {
    this.items.set(key, r);
    this.counts.set(key, (this.counts.get(key) ?? 0) + 1);
    this.waiters.get(key)?.(r);
  }

  has(key: string): boolean {
    return this.items.has(key);
  }

  count(key: string): number {
    return this.counts.get(key) ?? 0;
  }

  take(key: string, ms = 15000): Promise<Received<T>> {
    const have = this.items.get(key);
    if (have) return Promise.resolve(have);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no message for ${key} within ${ms} ms`)), ms);
      this.waiters.set(key, (r) => {
        clearTimeout(timer);
        this.waiters.delete(key);
        resolve(r);
      });
    });
  }
}

describe('router (HTTP + PostgreSQL + RabbitMQ)', () => {
  let db: TestDatabase;
  let vhost: TestVhost;
  let ds: Awaited<ReturnType<typeof openDatabase>>;
  let broker: Broker;
  let probe: Broker;
  let app: express.Express;
  let metrics: Metrics;
  let routerMetrics: RouterMetrics;
  let jobs: RouterJobsRepository;
  const work = new Inbox<JobMessageV1>();
  const relayed = new Inbox<ResultMessage>();

  beforeAll(async () => {
    [db, vhost] = await Promise.all([createTestDatabase('router_int'), createTestVhost('router_int')]);
    ds = await openDatabase(routerDatabaseOptions(db.url, silentLogger));
    jobs = new RouterJobsRepository(ds);
    metrics = new Metrics('router');
    routerMetrics = createRouterMetrics(metrics);

    broker = Broker.connect({ url: vhost.url, logger: silentLogger, name: 'router-int', reconnect: { initialMs: 50, maxMs: 500 } });
    await declareRouterQueues(broker);
    startResultsConsumer({ broker, jobs, metrics: routerMetrics, logger: silentLogger });
    await broker.ready(10000);

    // Stands in for the processors and the public API's results consumer.
    probe = Broker.connect({ url: vhost.url, logger: silentLogger, name: 'router-int-probe' });
    await probe.ready(10000);
    for (const q of [QUEUES.workflow, QUEUES.extraction]) await probe.assertWorkQueue(q);
    await declareResultsTopology(probe);
    for (const q of [QUEUES.workflow, QUEUES.extraction]) {
      probe.consume(q, JobMessageV1, async (msg, meta) => work.put(msg.job_id, { msg, meta }));
    }
    probe.consume(RELAY_QUEUES.publicApiResults, ResultMessage, async (msg, meta) => relayed.put(`${msg.job_id}:${msg.status}`, { msg, meta }));

    app = createApp({ logger: silentLogger, metrics, routerMetrics, health: [databaseHealthCheck(ds), broker.healthCheck()], jobs, broker, apiKey: API_KEY });
  });

  afterAll(async () => {
    await probe?.close(5000);
    await broker?.close(5000);
    if (ds) await closeDatabase(ds);
    await Promise.all([db?.drop(), vhost?.drop()]);
  });

  const submit = (body: unknown, key: string | null = API_KEY) => {
    const r = request(app).post('/api/v1/jobs');
    if (key !== null) r.set('X-API-Key', key);
    return r.send(body as object);
  };
  const createAppSubmitOf = async (jobId: string) => (await submit({ job_id: jobId, job_type: 'OCR', payload: { documents: [] } })).status;
  const status = (jobId: string) =>
    request(app)
      .get(`/api/v1/jobs/${encodeURIComponent(jobId)}`)
      .set('X-API-Key', API_KEY);
  const recordedTotal = async () => (await routerMetrics.results.get()).values.reduce((sum, v) => sum + v.value, 0);
  /**
   * Publishes a result as a processor would and waits until the router both
   * relayed it and recorded it (it does the two side by side).
   */
  const deliver = async (msg: ResultMessage, options: { messageId?: string } = {}) => {
    const before = await recordedTotal();
    await probe.publish(QUEUES.results, ResultMessage, msg, options);
    const relay = await relayed.take(`${msg.job_id}:${msg.status}`);
    for (let i = 0; i < 500 && (await recordedTotal()) <= before; i++) await new Promise((r) => setTimeout(r, 10));
    return relay;
  };

  it('purges the named jobs of a deleted account and leaves the others (POST /api/v1/jobs/purge, issue #18)', async () => {
    for (const id of ['purge_1', 'purge_2', 'purge_keep']) {
      expect((await submit({ job_id: id, job_type: 'OCR', payload: { documents: [] } })).status).toBe(200);
      await work.take(id);
    }
    const purge = (body: unknown, key = API_KEY) =>
      request(app)
        .post('/api/v1/jobs/purge')
        .set('X-API-Key', key)
        .send(body as object);
    expect((await purge({ job_ids: ['purge_1'] }, 'wrong-key')).status).toBe(401);
    expect((await purge({ job_ids: 'purge_1' })).status).toBe(400);
    const res = await purge({ job_ids: ['purge_1', 'purge_2', 'never_was'] });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ deleted: 2 });
    expect((await status('purge_1')).status).toBe(404);
    expect((await status('purge_2')).status).toBe(404);
    expect((await status('purge_keep')).status).toBe(200);
    expect((await purge({ job_ids: ['purge_1'] })).body).toEqual({ deleted: 0 });
  });

  it('queues a workflow job on workflow_queue with its payload unchanged', async () => {
    const payload = { workflow_definition: { nodes: [{ id: 'n1', type: 'llm_task', config: { deep: [1, { x: null }] } }], edges: [] }, inputs: { a: 'ü', n: 1.5 } };
    const res = await submit({ job_id: 'wf_101', job_type: 'task_based_workflow', payload, token: TOKEN });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ job_id: 'wf_101', success: true, message: 'Job queued on workflow_queue' });

    const { msg, meta } = await work.take('wf_101');
    expect(meta.queue).toBe('workflow_queue');
    expect(meta.kind).toBe('JobMessageV1');
    expect(meta.messageId).toBe('wf_101');
    expect(msg).toMatchObject({ version: 1, job_id: 'wf_101', job_type: 'task_based_workflow' });
    // The caller's JWT is accepted for compatibility and dropped: not on the queue, not in the database.
    expect(msg).not.toHaveProperty('token');
    expect(JSON.stringify(msg)).not.toContain(TOKEN);
    const rows = (await ds.query("SELECT to_jsonb(r)::text AS row FROM router_jobs r WHERE job_id = 'wf_101'")) as { row: string }[];
    expect(rows).toHaveLength(1);
    expect(rows[0]!.row).not.toContain(TOKEN);
    expect(await ds.query("SELECT 1 FROM information_schema.columns WHERE table_name = 'router_jobs' AND column_name = 'token'")).toEqual([]);
    expect(msg.payload).toEqual(payload);
    expect(Number.isNaN(Date.parse(msg.submitted_at))).toBe(false);

    const st = await status('wf_101');
    expect(st.status).toBe(200);
    expect(st.body).toMatchObject({ job_id: 'wf_101', success: true, status: 'queued', job_type: 'task_based_workflow', metadata: { status: 'queued', queue: 'workflow_queue', completed_at: null } });
    expect(JSON.stringify(st.body)).not.toContain(TOKEN);
  });

  it.each<[JobType, string]>([
    ['classification', 'cls_1'],
    ['document_extraction', 'ext_1'],
    ['OCR', 'ocr_1'],
  ])('queues a %s job on extraction_queue', async (jobType, jobId) => {
    const payload = { documents: [{ id: 7, file_url: 'http://files/x.pdf' }] };
    const res = await submit({ job_id: jobId, job_type: jobType, payload });
    expect(res.status).toBe(200);
    const { msg, meta } = await work.take(jobId);
    expect(meta.queue).toBe('extraction_queue');
    expect(msg.job_type).toBe(jobType);
    expect(msg.payload).toEqual(payload);
    expect(msg).not.toHaveProperty('token');
  });

  it('refuses a duplicate job id with 409 and keeps the first job', async () => {
    expect((await submit({ job_id: 'dup_1', job_type: 'OCR', payload: { documents: [] } })).status).toBe(200);
    const res = await submit({ job_id: 'dup_1', job_type: 'task_based_workflow', payload: WF_PAYLOAD });
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ error: 'conflict', message: 'Job dup_1 already exists' });
    expect((await status('dup_1')).body.job_type).toBe('OCR');
  });

  it('publishes a still-queued job again when its submission is retried (the router stopped between commit and publish), and only that', async () => {
    // The row of a job committed but never published, as a router killed between the two leaves it.
    expect(await jobs.insertQueued({ jobId: 'orphan_1', jobType: 'OCR', queue: QUEUES.extraction })).toBe(true);
    const retry = await submit({ job_id: 'orphan_1', job_type: 'OCR', payload: { documents: [7] } });
    expect(retry.status).toBe(409);
    expect((await work.take('orphan_1')).msg).toMatchObject({ job_id: 'orphan_1', job_type: 'OCR', payload: { documents: [7] } });

    // Another job type under a taken id, and a job no longer queued, are not sent again.
    expect(await jobs.insertQueued({ jobId: 'orphan_2', jobType: 'OCR', queue: QUEUES.extraction })).toBe(true);
    expect((await submit({ job_id: 'orphan_2', job_type: 'classification', payload: { documents: [] } })).status).toBe(409);
    expect(await createAppSubmitOf('done_1')).toBe(200);
    await work.take('done_1');
    await deliver(resultMessage({ job_id: 'done_1', status: 'completed' }));
    expect(await createAppSubmitOf('done_1')).toBe(409);
    expect(await createAppSubmitOf('after_1')).toBe(200);
    await work.take('after_1');
    await new Promise((r) => setTimeout(r, 300));
    expect(work.has('orphan_2')).toBe(false);
    expect(work.count('done_1')).toBe(1);
  });

  it('lists what is wrong with a bad body (400)', async () => {
    const res = await submit({ job_id: 'bad 1', job_type: 'fax', payload: 'nope' });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('validation_error');
    const errors: string[] = res.body.details.errors;
    expect(errors).toEqual(
      expect.arrayContaining([
        'job_id may only contain letters, digits and . _ : -',
        'job_type must be one of task_based_workflow, document_extraction, classification, OCR',
        expect.stringMatching(/^payload/),
      ]),
    );
    expect((await submit([1, 2])).status).toBe(400);
    expect((await status('bad 1')).status).toBe(404);
  });

  it('answers 400 missing_field for a missing job_id, job_type or payload, and for a workflow job without workflow_definition', async () => {
    const none = await submit({});
    expect(none.status).toBe(400);
    expect(none.body).toMatchObject({ error: 'missing_field', details: { missing: ['job_id', 'job_type', 'payload'] } });
    expect(none.body.details.errors).toEqual(['job_id is required', 'job_type is required', 'payload is required']);
    const noPayload = await submit({ job_id: 'mf_1', job_type: 'OCR', payload: null });
    expect(noPayload.body).toMatchObject({ error: 'missing_field', details: { missing: ['payload'] } });

    for (const payload of [{ inputs: { a: 1 } }, { workflow_definition: null, inputs: {} }]) {
      const res = await submit({ job_id: 'mf_wf', job_type: 'task_based_workflow', payload });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        error: 'missing_field',
        message: 'payload.workflow_definition is required for a task_based_workflow job',
        details: { missing: ['payload.workflow_definition'], errors: ['payload.workflow_definition is required for a task_based_workflow job'] },
      });
    }
    const notObject = await submit({ job_id: 'mf_wf', job_type: 'task_based_workflow', payload: { workflow_definition: 'nodes' } });
    expect(notObject.status).toBe(400);
    expect(notObject.body).toMatchObject({ error: 'validation_error', details: { errors: ['payload.workflow_definition must be an object'] } });
    expect((await status('mf_wf')).status).toBe(404);
    expect((await status('mf_1')).status).toBe(404);
    // Other job types carry documents; the router does not look inside their payload.
    expect((await submit({ job_id: 'mf_ocr', job_type: 'OCR', payload: {} })).status).toBe(200);
  });

  it('requires the API key (401)', async () => {
    const body = { job_id: 'auth_1', job_type: 'OCR', payload: {} };
    expect((await submit(body, null)).status).toBe(401);
    const wrong = await submit(body, 'wrong-key');
    expect(wrong.status).toBe(401);
    expect(wrong.body.error).toBe('unauthorized');
    expect((await request(app).get('/api/v1/jobs/auth_1')).status).toBe(401);
    expect((await status('auth_1')).status).toBe(404);
  });

  it('answers 404 for an unknown job', async () => {
    const res = await status('never_submitted');
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ error: 'not_found', message: 'Job never_submitted not found' });
  });

  it('answers 503 and keeps no row when the broker is unavailable', async () => {
    const down = Broker.connect({ url: vhost.url, logger: silentLogger, name: 'router-int-down' });
    await down.ready(10000);
    await down.close(2000);
    const downApp = createApp({
      logger: silentLogger,
      metrics: new Metrics('router'),
      routerMetrics: createRouterMetrics(new Metrics('router')),
      health: [databaseHealthCheck(ds), down.healthCheck()],
      jobs,
      broker: down,
      apiKey: API_KEY,
    });
    const res = await request(downApp).post('/api/v1/jobs').set('X-API-Key', API_KEY).send({ job_id: 'lost_1', job_type: 'OCR', payload: {} });
    expect(res.status).toBe(503);
    expect(res.body.error).toBe('broker_unavailable');
    expect(await jobs.findById('lost_1')).toBeNull();
    const health = await request(downApp).get('/_health');
    expect(health.status).toBe(503);
    expect(health.body.failing).toEqual([{ name: 'broker', error: 'broker client closed' }]);
    // The same id can be submitted again once the broker is back.
    expect((await submit({ job_id: 'lost_1', job_type: 'OCR', payload: {} })).status).toBe(200);
  });

  it('groups concurrent submissions: one INSERT per batch, a duplicate refused to its own request only, a failed publish removed and refused alone', async () => {
    /** The real repository, recording how many jobs each INSERT carried. */
    class CountingJobs extends RouterJobsRepository {
      readonly batches: string[][] = [];
      override insertQueuedMany(list: Parameters<RouterJobsRepository['insertQueuedMany']>[0]) {
        this.batches.push(list.map((j) => j.jobId));
        return super.insertQueuedMany(list);
      }
    }
    const counting = new CountingJobs(ds);
    // The real broker, except that the broker does not take grp_fail.
    const failing: Pick<Broker, 'publish'> = {
      publish: (queue, cls, message, opts) =>
        opts?.messageId === 'grp_fail' ? Promise.reject(new BrokerUnavailableError('Message broker did not accept the message')) : broker.publish(queue, cls, message, opts),
    };
    const service = new JobsService({ jobs: counting, broker: failing, metrics: routerMetrics, logger: silentLogger });
    // Taken by another job (a still-queued job of the same type would be published again for a retry: see the test above).
    expect(await jobs.insertQueued({ jobId: 'grp_taken', jobType: 'classification', queue: 'extraction_queue' })).toBe(true);
    const job = (id: string, jobType: JobType = 'OCR') => ({ job_id: id, job_type: jobType, payload: jobType === 'OCR' ? { documents: [] } : WF_PAYLOAD }) as JobRequest;
    // The first submission finds nothing in flight and goes alone at once; the rest queue behind its INSERT.
    const ids = ['grp_0', 'grp_1', 'grp_2', 'grp_2', 'grp_taken', 'grp_fail', 'grp_3'];
    const answers = await Promise.allSettled(ids.map((id, i) => runWithContext({ correlationId: `corr-${id}-${i}` }, () => service.submit(job(id, i === 3 ? 'task_based_workflow' : 'OCR')))));
    expect(counting.batches).toEqual([['grp_0'], ['grp_1', 'grp_2', 'grp_2', 'grp_taken', 'grp_fail', 'grp_3']]);
    const outcome = (r: PromiseSettledResult<unknown>) => (r.status === 'fulfilled' ? 200 : (r.reason as { status?: number }).status);
    expect(answers.map(outcome)).toEqual([200, 200, 200, 409, 409, 503, 200]);
    expect(answers[3]).toMatchObject({ status: 'rejected', reason: { message: 'Job grp_2 already exists' } });
    // Each accepted job is committed and on its queue; the first of two grp_2 submissions won, as it would one by one.
    for (const id of ['grp_0', 'grp_1', 'grp_2', 'grp_3']) {
      const { meta } = await work.take(id);
      expect(meta.queue).toBe('extraction_queue');
      // Published by whichever request's flush, yet with its own request's correlation id.
      expect(meta.correlationId).toBe(`corr-${id}-${ids.indexOf(id)}`);
      expect((await status(id)).body).toMatchObject({ job_id: id, status: 'queued', job_type: 'OCR' });
    }
    expect(await jobs.findById('grp_fail')).toBeNull();
    expect(work.has('grp_fail')).toBe(false);
    expect(work.has('grp_taken')).toBe(false);
    expect((await status('grp_taken')).status).toBe(200);
    // The refused one can be submitted again, alone.
    await expect(service.submit(job('grp_fail'))).rejects.toMatchObject({ status: 503 });
    await expect(createAppSubmitOf('grp_fail')).resolves.toBe(200);
    expect(counting.batches).toHaveLength(3);
  });

  it('takes several jobs in one POST /api/v1/jobs/batch: per job what /api/v1/jobs answers, one INSERT, each message under its own correlation id', async () => {
    const batch = (body: unknown, key = API_KEY) =>
      request(app)
        .post('/api/v1/jobs/batch')
        .set('X-API-Key', key)
        .send(body as object);
    expect(await jobs.insertQueued({ jobId: 'bat_orphan', jobType: 'OCR', queue: QUEUES.extraction })).toBe(true);
    expect(await createAppSubmitOf('bat_taken')).toBe(200);
    await work.take('bat_taken');
    await deliver(resultMessage({ job_id: 'bat_taken', status: 'completed' }));
    const res = await batch({
      jobs: [
        { job_id: 'bat_1', job_type: 'OCR', payload: { documents: [1] }, correlation_id: 'corr-bat-1' },
        { job_id: 'bat_2', job_type: 'task_based_workflow', payload: WF_PAYLOAD, correlation_id: 'corr-bat-2' },
        { job_id: 'bat_1', job_type: 'OCR', payload: { documents: [] } },
        { job_id: 'bat_taken', job_type: 'OCR', payload: { documents: [] } },
        { job_id: 'bat_orphan', job_type: 'OCR', payload: { documents: [3] } },
        { job_id: 'bat bad', job_type: 'fax', payload: 'nope' },
        { job_id: 'bat_wf', job_type: 'task_based_workflow', payload: { inputs: {} } },
      ],
    });
    expect(res.status).toBe(200);
    const results = res.body.results as { job_id?: string; status: number; body: Record<string, unknown> }[];
    expect(results.map((r) => [r.job_id, r.status])).toEqual([
      ['bat_1', 200],
      ['bat_2', 200],
      ['bat_1', 409],
      ['bat_taken', 409],
      ['bat_orphan', 409],
      ['bat bad', 400],
      ['bat_wf', 400],
    ]);
    expect(results[0]!.body).toEqual({ job_id: 'bat_1', success: true, message: 'Job queued on extraction_queue' });
    expect(results[2]!.body).toMatchObject({ error: 'conflict', message: 'Job bat_1 already exists' });
    expect(results[5]!.body).toMatchObject({ error: 'validation_error' });
    expect(results[6]!.body).toMatchObject({ error: 'missing_field', details: { missing: ['payload.workflow_definition'] } });
    expect((await work.take('bat_1')).meta.correlationId).toBe('corr-bat-1');
    expect((await work.take('bat_2')).meta).toMatchObject({ queue: 'workflow_queue', correlationId: 'corr-bat-2' });
    // The retried still-queued job is published again, as by /api/v1/jobs; the finished one is not.
    expect((await work.take('bat_orphan')).msg.payload).toEqual({ documents: [3] });
    expect(work.count('bat_taken')).toBe(1);
    expect((await status('bat_wf')).status).toBe(404);

    // The body as a whole: not a list of 1 to 64 jobs is 400; the API key is required.
    for (const body of [{}, { jobs: [] }, { jobs: Array.from({ length: 65 }, (_, i) => ({ job_id: `bat_many_${i}`, job_type: 'OCR', payload: {} })) }, [1]]) {
      expect((await batch(body)).status).toBe(400);
    }
    expect((await batch({ jobs: [{ job_id: 'bat_key', job_type: 'OCR', payload: {} }] }, 'wrong-key')).status).toBe(401);
    expect((await status('bat_key')).status).toBe(404);
  });

  it('answers 503 per job of a batch the broker does not take, and keeps none of their rows', async () => {
    const failing: Pick<Broker, 'publish'> = {
      publish: (queue, cls, message, opts) =>
        opts?.messageId === 'batf_fail' ? Promise.reject(new BrokerUnavailableError('Message broker did not accept the message')) : broker.publish(queue, cls, message, opts),
    };
    const failingApp = createApp({ logger: silentLogger, metrics: new Metrics('router'), routerMetrics, health: [], jobs, broker: failing, apiKey: API_KEY });
    const res = await request(failingApp)
      .post('/api/v1/jobs/batch')
      .set('X-API-Key', API_KEY)
      .send({
        jobs: [
          { job_id: 'batf_ok', job_type: 'OCR', payload: {} },
          { job_id: 'batf_fail', job_type: 'OCR', payload: {} },
        ],
      });
    expect(res.status).toBe(200);
    expect(res.body.results.map((r: { status: number }) => r.status)).toEqual([200, 503]);
    expect(res.body.results[1].body).toMatchObject({ error: 'broker_unavailable' });
    await work.take('batf_ok');
    expect(await jobs.findById('batf_fail')).toBeNull();
  });

  it('records a result, relays it, and ignores a late processing message', async () => {
    expect((await submit({ job_id: 'wf_res', job_type: 'task_based_workflow', payload: WF_PAYLOAD })).status).toBe(200);
    const completed: ResultMessage = {
      job_id: 'wf_res',
      status: 'completed',
      outputs: { summary: 'done' },
      task_states: { n1: { status: 'completed', result: { ok: true } } },
    };
    const relay = await deliver(completed, { messageId: 'res-1' });
    expect(relay.msg).toEqual(completed);
    expect(relay.meta.messageId).toBe('res-1');

    const done = await status('wf_res');
    expect(done.body).toMatchObject({ status: 'completed', error: null, result: { outputs: { summary: 'done' }, task_states: { n1: { status: 'completed', result: { ok: true } } } } });
    expect(done.body.metadata.completed_at).toEqual(expect.any(String));

    await deliver({ job_id: 'wf_res', status: 'processing', task_states: { n1: { status: 'running' } } });
    const after = await status('wf_res');
    expect(after.body.status).toBe('completed');
    expect(after.body.result.task_states.n1.status).toBe('completed');
    expect(after.body.metadata.completed_at).toBe(done.body.metadata.completed_at);
  });

  it('moves through processing and awaiting input, and a failed result sets the error', async () => {
    expect((await submit({ job_id: 'wf_path', job_type: 'task_based_workflow', payload: WF_PAYLOAD })).status).toBe(200);
    await deliver({ job_id: 'wf_path', status: 'processing' });
    expect((await status('wf_path')).body.status).toBe('processing');
    await deliver({ job_id: 'wf_path', status: 'awaiting_user_input', awaiting_node: 'approve', awaiting_since: '2026-01-01T00:00:00Z' });
    const waiting = await status('wf_path');
    expect(waiting.body).toMatchObject({ status: 'awaiting_user_input', result: { awaiting_node: 'approve' }, metadata: { completed_at: null } });
    await deliver({ job_id: 'wf_path', status: 'failed', error: 'WORKFLOW_DEADLINE_EXCEEDED', failed_node: 'approve' });
    expect((await status('wf_path')).body).toMatchObject({ status: 'failed', error: 'WORKFLOW_DEADLINE_EXCEEDED', result: { failed_node: 'approve' } });
  });

  it('records a result its publisher already delivered to the public API, without relaying it again', async () => {
    expect((await submit({ job_id: 'wf_direct', job_type: 'task_based_workflow', payload: WF_PAYLOAD })).status).toBe(200);
    const before = await recordedTotal();
    await probe.publish(QUEUES.results, ResultMessage, { job_id: 'wf_direct', status: 'completed', outputs: {} }, { headers: { [RESULT_DELIVERED_TO_HEADER]: RELAY_QUEUES.publicApiResults } });
    for (let i = 0; i < 500 && (await recordedTotal()) <= before; i++) await new Promise((r) => setTimeout(r, 10));
    expect((await status('wf_direct')).body.status).toBe('completed');
    // A later message without the header is relayed: had the first been relayed, it would be taken here first.
    await deliver({ job_id: 'wf_direct', status: 'processing' });
    expect(relayed.has('wf_direct:completed')).toBe(false);
  });

  it('records a result published once to the results exchange, which the public API queue gets once, not relayed', async () => {
    expect((await submit({ job_id: 'wf_exchange', job_type: 'task_based_workflow', payload: WF_PAYLOAD })).status).toBe(200);
    const before = await recordedTotal();
    const msg = resultMessage({ job_id: 'wf_exchange', status: 'completed', outputs: { n: 1 } });
    await new ResultPublisher(probe).publish(msg);
    expect((await relayed.take('wf_exchange:completed')).msg).toEqual(msg);
    for (let i = 0; i < 500 && (await recordedTotal()) <= before; i++) await new Promise((r) => setTimeout(r, 10));
    expect((await status('wf_exchange')).body).toMatchObject({ status: 'completed', result: { outputs: { n: 1 } } });
    // A marker relay would arrive with the next one; the router relays the unmarked message only.
    await deliver({ job_id: 'wf_exchange', status: 'processing' });
    expect(relayed.count('wf_exchange:completed')).toBe(1);
  });

  it('applies results arriving together as a batch: per job the monotonic outcome, every unmarked one relayed once', async () => {
    const ids = ['wf_b1', 'wf_b2', 'wf_b3'];
    for (const id of ids) expect((await submit({ job_id: id, job_type: 'task_based_workflow', payload: WF_PAYLOAD })).status).toBe(200);
    const before = await recordedTotal();
    const burst: ResultMessage[] = ids.flatMap((job_id, i) => [
      { job_id, status: 'processing' as const },
      i === 1 ? { job_id, status: 'failed' as const, error: 'boom' } : { job_id, status: 'completed' as const, outputs: { i } },
      { job_id, status: 'awaiting_user_input' as const },
    ]);
    await Promise.all(burst.map((m) => probe.publish(QUEUES.results, ResultMessage, m)));
    await Promise.all(burst.map((m) => relayed.take(`${m.job_id}:${m.status}`)));
    for (let i = 0; i < 500 && (await recordedTotal()) < before + burst.length; i++) await new Promise((r) => setTimeout(r, 10));
    expect(await recordedTotal()).toBe(before + burst.length);
    expect((await status('wf_b1')).body).toMatchObject({ status: 'completed', result: { outputs: { i: 0 } } });
    expect((await status('wf_b2')).body).toMatchObject({ status: 'failed', error: 'boom' });
    expect((await status('wf_b3')).body).toMatchObject({ status: 'completed', result: { outputs: { i: 2 } } });
    for (const m of burst) expect(relayed.count(`${m.job_id}:${m.status}`)).toBe(1);
  });

  it('relays a result for an unknown job without creating it', async () => {
    expect((await deliver({ job_id: 'ghost', status: 'completed', outputs: {} })).msg.job_id).toBe('ghost');
    expect((await status('ghost')).status).toBe(404);
  });

  it('reports health and counts submissions and results', async () => {
    expect((await request(app).get('/_health')).status).toBe(204);
    expect((await submit({ job_id: 'metrics_1', job_type: 'OCR', payload: {} })).status).toBe(200);
    await probe.publish(QUEUES.results, ResultMessage, { job_id: 'metrics_1', status: 'completed' });
    const text = (await request(app).get('/metrics')).text;
    expect(text).toMatch(/router_jobs_submitted_total\{job_type="OCR",service="router"\} [1-9]/);
    expect(text).toMatch(/router_results_total\{status="completed",service="router"\} [1-9]/);
  });

  describe('status transitions applied by the repository', () => {
    it.each<[JobStatus, JobStatus, 'applied' | 'ignored']>([
      ['queued', 'processing', 'applied'],
      ['queued', 'completed', 'applied'],
      ['queued', 'awaiting_user_input', 'applied'],
      ['processing', 'processing', 'applied'],
      ['processing', 'failed', 'applied'],
      ['awaiting_user_input', 'awaiting_user_input', 'applied'],
      ['awaiting_user_input', 'completed', 'applied'],
      ['awaiting_user_input', 'processing', 'ignored'],
      ['processing', 'queued', 'ignored'],
      ['completed', 'processing', 'ignored'],
      ['completed', 'completed', 'ignored'],
      ['completed', 'failed', 'ignored'],
      ['failed', 'completed', 'ignored'],
      ['failed', 'awaiting_user_input', 'ignored'],
    ])('%s -> %s: %s', async (from, to, expected) => {
      const jobId = `transition_${from}_${to}_${Math.random().toString(36).slice(2)}`;
      expect(await jobs.insertQueued({ jobId, jobType: 'task_based_workflow', queue: 'workflow_queue' })).toBe(true);
      await ds.query('UPDATE router_jobs SET status = $2 WHERE job_id = $1', [jobId, from]);
      const outcome = await jobs.applyResult(jobId, { status: to as ResultStatus, result: { marker: to }, error: null });
      expect(outcome).toEqual({ outcome: expected, from });
      const row = await jobs.findById(jobId);
      expect(row?.status).toBe(expected === 'applied' ? to : from);
    });

    it('reports a job it does not know', async () => {
      expect(await jobs.applyResult('never-submitted', { status: 'completed', result: null, error: null })).toEqual({ outcome: 'unknown' });
    });
  });
});
