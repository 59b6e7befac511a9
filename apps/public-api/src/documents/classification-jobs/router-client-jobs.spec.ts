import { RouterClient, RouterUnavailableError } from '../../platform';
import { recordingLogger } from '../../test-support/test-app';
import { resultFromRouter } from './classification-jobs.service';
import { closedPortUrl, FakeRouter } from '../../test-support/fake-router';

const KEY = 'router-key-jobs-0123456789';

describe('RouterClient for extraction-queue jobs', () => {
  let router: FakeRouter;

  beforeAll(async () => {
    router = await FakeRouter.start(KEY);
  });

  afterAll(async () => {
    await router.close();
  });

  it('submits a job of any type and reads its status back', async () => {
    const client = new RouterClient({ baseUrl: router.url, apiKey: KEY, logger: recordingLogger() });
    const payload = { documents: [{ id: 1 }], user_id: 2 };
    await expect(client.submitJob({ jobId: 'cls_1', jobType: 'classification', payload })).resolves.toBe('queued');
    expect(router.job('cls_1')).toEqual({ job_id: 'cls_1', job_type: 'classification', payload, apiKey: KEY });
    router.settle('cls_1', { status: 'completed', result: { outputs: { extraction_result: { document_type: 'invoice' } } } });
    const status = await client.getJob('cls_1');
    expect(status).toMatchObject({ job_id: 'cls_1', status: 'completed', job_type: 'classification', result: { outputs: { extraction_result: { document_type: 'invoice' } } } });
    await expect(client.getJob('cls_unknown')).resolves.toBeNull();
  });

  it('throws RouterUnavailableError on a refused key and when nothing listens', async () => {
    const wrong = new RouterClient({ baseUrl: router.url, apiKey: 'wrong', logger: recordingLogger() });
    await expect(wrong.getJob('cls_1')).rejects.toMatchObject({ routerStatus: 401 });
    const down = new RouterClient({ baseUrl: await closedPortUrl(), apiKey: KEY, logger: recordingLogger() });
    await expect(down.getJob('cls_1')).rejects.toBeInstanceOf(RouterUnavailableError);
  });
});

describe('resultFromRouter', () => {
  it('takes the outputs of the stored result, with extraction_result and metadata always present', () => {
    expect(resultFromRouter({ outputs: { extraction_result: { a: 1 }, metadata: { b: 2 } }, task_states: {} })).toEqual({ extraction_result: { a: 1 }, metadata: { b: 2 } });
    expect(resultFromRouter({ outputs: { documents: [1] } })).toEqual({ extraction_result: null, metadata: null, documents: [1] });
    expect(resultFromRouter(null)).toEqual({ extraction_result: null, metadata: null });
    expect(resultFromRouter({ outputs: 'x' })).toEqual({ extraction_result: null, metadata: null });
  });
});
