import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { JOB_PURGE_MAX, type WorkflowJobPayload } from '@docflow/contracts';
import { runWithContext } from '@docflow/service-kit';
import { LogLine, recordingLogger } from '../../test-support/test-app';
import { closedPortUrl, FakeRouter } from '../../test-support/fake-router';
import { RouterClient, RouterUnavailableError } from './router-client';

const KEY = 'router-key-0123456789abcdef';
const payload: WorkflowJobPayload = { workflow_definition: { nodes: [], edges: [] }, inputs: { a: 1 }, execution_id: 3 };

describe('RouterClient', () => {
  let router: FakeRouter;

  beforeAll(async () => {
    router = await FakeRouter.start(KEY);
  });

  afterAll(async () => {
    await router.close();
  });

  it('submits a task_based_workflow job with the API key, under the request’s correlation id, and no user token', async () => {
    const client = new RouterClient({ baseUrl: `${router.url}/`, apiKey: KEY, logger: recordingLogger() });
    await expect(runWithContext({ correlationId: 'corr-route-1' }, () => client.submitWorkflowJob({ jobId: 'wf_3', payload }))).resolves.toBe('queued');
    expect(router.job('wf_3')).toEqual({ job_id: 'wf_3', job_type: 'task_based_workflow', payload, apiKey: KEY });
    expect(router.correlationIds.get('wf_3')).toBe('corr-route-1');
  });

  it('reads 409 as a job the router already holds', async () => {
    const client = new RouterClient({ baseUrl: router.url, apiKey: KEY, logger: recordingLogger() });
    await expect(client.submitWorkflowJob({ jobId: 'wf_3', payload })).resolves.toBe('duplicate');
  });

  it('throws RouterUnavailableError (503) on 503, on a refused key and when nothing listens', async () => {
    router.mode = 'broker_down';
    try {
      const err = await new RouterClient({ baseUrl: router.url, apiKey: KEY, logger: recordingLogger() }).submitWorkflowJob({ jobId: 'wf_4', payload }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(RouterUnavailableError);
      expect((err as RouterUnavailableError).status).toBe(503);
      expect((err as RouterUnavailableError).routerStatus).toBe(503);
    } finally {
      router.mode = 'queue';
    }
    const lines: LogLine[] = [];
    const wrongKey = new RouterClient({ baseUrl: router.url, apiKey: 'wrong-key', logger: recordingLogger(lines) });
    await expect(wrongKey.submitWorkflowJob({ jobId: 'wf_5', payload })).rejects.toMatchObject({ routerStatus: 401 });
    expect(JSON.stringify(lines)).not.toContain('wrong-key');
    const down = new RouterClient({ baseUrl: await closedPortUrl(), apiKey: KEY, logger: recordingLogger() });
    await expect(down.submitWorkflowJob({ jobId: 'wf_6', payload })).rejects.toBeInstanceOf(RouterUnavailableError);
  });

  it('purges jobs by id in requests of at most JOB_PURGE_MAX, counting what the router held (account deletion)', async () => {
    const client = new RouterClient({ baseUrl: router.url, apiKey: KEY, logger: recordingLogger() });
    await client.submitWorkflowJob({ jobId: 'wf_purge_1', payload });
    const [before, requestsBefore] = [router.purged.length, router.purgeRequests];
    const ids = ['wf_purge_1', ...Array.from({ length: JOB_PURGE_MAX + 5 }, (_, i) => `gone_${i}`)];
    await expect(client.purgeJobs(ids)).resolves.toBe(1);
    expect(router.purged.slice(before)).toEqual(ids);
    expect(router.purgeRequests - requestsBefore).toBe(2);
    await expect(client.purgeJobs([])).resolves.toBe(0);
    const wrongKey = new RouterClient({ baseUrl: router.url, apiKey: 'wrong-key', logger: recordingLogger() });
    await expect(wrongKey.purgeJobs(['wf_purge_1'])).rejects.toMatchObject({ routerStatus: 401 });
    const down = new RouterClient({ baseUrl: await closedPortUrl(), apiKey: KEY, logger: recordingLogger() });
    await expect(down.purgeJobs(['wf_purge_1'])).rejects.toBeInstanceOf(RouterUnavailableError);
  });

  it('sends submissions of one turn as one POST /api/v1/jobs/batch, each with its own outcome and correlation id, and one alone as before', async () => {
    const client = new RouterClient({ baseUrl: router.url, apiKey: KEY, logger: recordingLogger() });
    const batchesBefore = router.batches.length;
    await expect(runWithContext({ correlationId: 'corr-alone' }, () => client.submitWorkflowJob({ jobId: 'wf_alone', payload }))).resolves.toBe('queued');
    expect(router.batches.length).toBe(batchesBefore);
    const ids = ['wf_b1', 'wf_b2', 'wf_3', 'wf_b3'];
    const outcomes = await Promise.all(ids.map((jobId) => runWithContext({ correlationId: `corr-${jobId}` }, () => client.submitWorkflowJob({ jobId, payload }))));
    // wf_3 is held already (the first test): a duplicate to its own caller only.
    expect(outcomes).toEqual(['queued', 'queued', 'duplicate', 'queued']);
    expect(router.batches.slice(batchesBefore)).toEqual([4]);
    for (const id of ['wf_b1', 'wf_b2', 'wf_b3']) {
      expect(router.job(id)).toEqual({ job_id: id, job_type: 'task_based_workflow', payload, apiKey: KEY });
      expect(router.correlationIds.get(id)).toBe(`corr-${id}`);
    }
    expect(router.correlationIds.get('wf_alone')).toBe('corr-alone');
    client.close();
  });

  it('fails every job of a batch the router refuses as a whole, and sends the jobs one by one to a router without the batch route', async () => {
    const client = new RouterClient({ baseUrl: router.url, apiKey: KEY, logger: recordingLogger() });
    router.mode = 'broker_down';
    try {
      const refused = await Promise.allSettled(['wf_c1', 'wf_c2'].map((jobId) => client.submitWorkflowJob({ jobId, payload })));
      expect(refused.map((r) => (r.status === 'rejected' ? (r.reason as RouterUnavailableError).routerStatus : r.value))).toEqual([503, 503]);
    } finally {
      router.mode = 'queue';
    }
    expect(router.job('wf_c1')).toBeUndefined();
    client.close();

    const seen: string[] = [];
    const older = http.createServer((req, res) => {
      seen.push(req.url ?? '');
      res.setHeader('content-type', 'application/json');
      if (req.url === '/api/v1/jobs/batch') {
        res.statusCode = 404;
        res.end('{"error":"not_found"}');
      } else res.end('{"success":true}');
    });
    await new Promise<void>((r) => older.listen(0, '127.0.0.1', r));
    try {
      const old = new RouterClient({ baseUrl: `http://127.0.0.1:${(older.address() as AddressInfo).port}`, apiKey: KEY, logger: recordingLogger() });
      await expect(Promise.all(['wf_d1', 'wf_d2'].map((jobId) => old.submitWorkflowJob({ jobId, payload })))).resolves.toEqual(['queued', 'queued']);
      expect(seen).toEqual(['/api/v1/jobs/batch', '/api/v1/jobs', '/api/v1/jobs']);
      old.close();
    } finally {
      older.closeAllConnections();
      await new Promise((r) => older.close(r));
    }
  });

  it('refuses to send a job id the router would reject', async () => {
    const client = new RouterClient({ baseUrl: router.url, apiKey: KEY, logger: recordingLogger() });
    await expect(client.submitWorkflowJob({ jobId: 'wf 7/../', payload })).rejects.toThrow(/invalid job request/);
  });

  it('answers 503 when the router does not answer within the timeout', async () => {
    const silent = http.createServer(() => undefined);
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    try {
      const url = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
      const client = new RouterClient({ baseUrl: url, apiKey: KEY, logger: recordingLogger(), timeoutMs: 200 });
      await expect(client.submitWorkflowJob({ jobId: 'wf_8', payload })).rejects.toBeInstanceOf(RouterUnavailableError);
      client.close();
    } finally {
      silent.closeAllConnections();
      await new Promise((r) => silent.close(r));
    }
  });

  it('sends a request again on a new socket when a kept-alive one turns out closed', async () => {
    const seen: string[] = [];
    let requests = 0;
    const server = http.createServer((req, res) => {
      requests++;
      seen.push(`${req.socket.remotePort}`);
      // The second request arrives on the kept-alive socket: drop it unanswered, as a router that closed it would.
      if (requests === 2) {
        req.socket.destroy();
        return;
      }
      res.setHeader('content-type', 'application/json');
      res.end('{"success":true}');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const client = new RouterClient({ baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, apiKey: KEY, logger: recordingLogger() });
      await expect(client.submitWorkflowJob({ jobId: 'wf_9', payload })).resolves.toBe('queued');
      await expect(client.submitWorkflowJob({ jobId: 'wf_10', payload })).resolves.toBe('queued');
      expect(requests).toBe(3);
      expect(seen[1]).toBe(seen[0]); // the second went out on the first's socket
      expect(seen[2]).not.toBe(seen[1]); // and was sent again on a new one
      client.close();
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });
});
