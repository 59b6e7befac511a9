import type { RequestListener } from 'node:http';
import request from 'supertest';
import { BrokerUnavailableError } from '@docflow/messaging';
import { Metrics, silentLogger } from '@docflow/service-kit';
import { createApp, createRequestListener, type RouterAppDeps } from '../app';
import { createRouterMetrics } from '../metrics';
import { jobLane } from './jobs.routes';
import { JobsService } from './jobs.service';
import type { NewRouterJob, RouterJobsRepository } from './router-jobs.repository';

const API_KEY = 'router-lane-key-0123456789';
const PAYLOAD = { workflow_definition: { nodes: [], edges: [] }, inputs: { text: 'ünï "quoted"' } };

/** What the JobsService needs of the repository, in memory: a taken id is refused. */
function memoryJobs(): RouterJobsRepository {
  const rows = new Map<string, NewRouterJob>();
  const fake = {
    insertQueuedMany: async (jobs: NewRouterJob[]) => {
      const inserted = new Set<string>();
      for (const j of jobs) {
        if (rows.has(j.jobId)) continue;
        rows.set(j.jobId, j);
        inserted.add(j.jobId);
      }
      return inserted;
    },
    stillQueued: async () => new Map<string, string>(),
    deleteMany: async (ids: string[]) => ids.filter((id) => rows.delete(id)).length,
    findById: async () => null,
  };
  return fake as unknown as RouterJobsRepository;
}

/** The express app and the server's listener, each on its own memory and broker, built from the same deps otherwise. */
function targets(): { express: RequestListener; lane: RequestListener; published: { express: string[]; lane: string[] } } {
  const published = { express: [] as string[], lane: [] as string[] };
  const deps = (into: string[]): RouterAppDeps => {
    const metrics = new Metrics('router-lane-test');
    return {
      logger: silentLogger,
      metrics,
      routerMetrics: createRouterMetrics(metrics),
      health: [],
      jobs: memoryJobs(),
      broker: {
        publish: async (_queue: string, _cls: unknown, message: { job_id: string }) => {
          if (message.job_id.startsWith('unconfirmed')) throw new BrokerUnavailableError('Message broker did not accept the message');
          into.push(message.job_id);
        },
      } as unknown as RouterAppDeps['broker'],
      apiKey: API_KEY,
    };
  };
  return { express: createApp(deps(published.express)), lane: createRequestListener(deps(published.lane)), published };
}

type Send = (target: RequestListener) => request.Test;

const job = (id: string, extra: Record<string, unknown> = {}) => ({ job_id: id, job_type: 'task_based_workflow', payload: PAYLOAD, ...extra });

const CASES: [string, Send][] = [
  ['one job', (t) => request(t).post('/api/v1/jobs').set('X-API-Key', API_KEY).send(job('wf_1'))],
  ['the same job again (409)', (t) => request(t).post('/api/v1/jobs').set('X-API-Key', API_KEY).send(job('wf_1'))],
  ['no key', (t) => request(t).post('/api/v1/jobs').send(job('wf_2'))],
  ['a wrong key', (t) => request(t).post('/api/v1/jobs').set('X-API-Key', 'nope').send(job('wf_2'))],
  ['malformed JSON without a key (400 before 401)', (t) => request(t).post('/api/v1/jobs').set('Content-Type', 'application/json').send('{"job_id": ')],
  ['a missing field', (t) => request(t).post('/api/v1/jobs').set('X-API-Key', API_KEY).send({ job_id: 'wf_3', job_type: 'task_based_workflow' })],
  [
    'an unknown job type',
    (t) =>
      request(t)
        .post('/api/v1/jobs')
        .set('X-API-Key', API_KEY)
        .send(job('wf_4', { job_type: 'nope' })),
  ],
  [
    'a NUL in the payload',
    (t) =>
      request(t)
        .post('/api/v1/jobs')
        .set('X-API-Key', API_KEY)
        .send(job('wf_5', { payload: { workflow_definition: { a: 'x\u0000y' } } })),
  ],
  ['an unconfirmed publish (503)', (t) => request(t).post('/api/v1/jobs').set('X-API-Key', API_KEY).send(job('unconfirmed_1'))],
  [
    'an array body',
    (t) =>
      request(t)
        .post('/api/v1/jobs')
        .set('X-API-Key', API_KEY)
        .send([job('wf_6')]),
  ],
  ['an empty body', (t) => request(t).post('/api/v1/jobs').set('X-API-Key', API_KEY).set('Content-Type', 'application/json').send('')],
  [
    'a batch of good, taken, invalid and unconfirmed jobs with correlation ids',
    (t) =>
      request(t)
        .post('/api/v1/jobs/batch')
        .set('X-API-Key', API_KEY)
        .send({ jobs: [job('wf_10', { correlation_id: 'corr-10' }), job('wf_1'), { job_id: 'wf_11' }, job('unconfirmed_2'), job('wf_10')] }),
  ],
  ['an empty batch', (t) => request(t).post('/api/v1/jobs/batch').set('X-API-Key', API_KEY).send({ jobs: [] })],
  [
    'a batch without a key',
    (t) =>
      request(t)
        .post('/api/v1/jobs/batch')
        .send({ jobs: [job('wf_12')] }),
  ],
  ['a query string (left to express)', (t) => request(t).post('/api/v1/jobs?x=1').set('X-API-Key', API_KEY).send(job('wf_13'))],
  ['text/plain (left to express)', (t) => request(t).post('/api/v1/jobs').set('X-API-Key', API_KEY).set('Content-Type', 'text/plain').send('{}')],
  ['a status read (express)', (t) => request(t).get('/api/v1/jobs/wf_1').set('X-API-Key', API_KEY)],
  ['another route (express 404)', (t) => request(t).post('/api/v1/nothing').set('X-API-Key', API_KEY).send({})],
];

describe('router job lane', () => {
  it('answers every case as the express routes do: status, content type and body', async () => {
    const t = targets();
    for (const [name, send] of CASES) {
      const [viaExpress, viaLane] = [await send(t.express), await send(t.lane)];
      const view = (r: request.Response) => ({ name, status: r.status, type: r.headers['content-type'], body: r.body as unknown });
      expect(view(viaLane)).toEqual(view(viaExpress));
    }
    // And the same jobs were published by both.
    expect(t.published.lane).toEqual(t.published.express);
    expect(t.published.lane).toEqual(['wf_1', 'wf_10', 'wf_13']);
  });

  it('serves the two job routes itself and leaves everything else to its fallback', async () => {
    const metrics = new Metrics('router-lane-test');
    const routerMetrics = createRouterMetrics(metrics);
    const fellBack: string[] = [];
    const publish = async () => undefined;
    const service = new JobsService({ jobs: memoryJobs(), broker: { publish } as unknown as RouterAppDeps['broker'], metrics: routerMetrics, logger: silentLogger });
    const lane = jobLane({
      jobs: service,
      apiKey: API_KEY,
      logger: silentLogger,
      metrics,
      maxBodyBytes: 1024 * 1024,
      fallback: (req, res) => {
        fellBack.push(`${req.method} ${req.url}`);
        res.statusCode = 418;
        res.end();
      },
    });
    const one = await request(lane).post('/api/v1/jobs').set('X-API-Key', API_KEY).send(job('wf_20'));
    const batch = await request(lane)
      .post('/api/v1/jobs/batch')
      .set('X-API-Key', API_KEY)
      .send({ jobs: [job('wf_21')] });
    expect([one.status, batch.status]).toEqual([200, 200]);
    expect(one.headers['x-correlation-id']).toEqual(expect.any(String));
    await request(lane).get('/api/v1/jobs/wf_20').set('X-API-Key', API_KEY);
    await request(lane)
      .post('/api/v1/jobs/purge')
      .set('X-API-Key', API_KEY)
      .send({ job_ids: ['wf_20'] });
    await request(lane).post('/api/v1/jobs?x=1').set('X-API-Key', API_KEY).send(job('wf_22'));
    expect(fellBack).toEqual(['GET /api/v1/jobs/wf_20', 'POST /api/v1/jobs/purge', 'POST /api/v1/jobs?x=1']);
  });
});
