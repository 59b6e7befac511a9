import { RouterClient, RouterUnavailableError } from '../../platform';
import { recordingLogger } from '../../test-support/test-app';
import { resultFromOutputs } from './classification-jobs.service';
import { isExtractionJobId } from './extraction-job-results';
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

  it('submits a job of any type', async () => {
    const client = new RouterClient({ baseUrl: router.url, apiKey: KEY, logger: recordingLogger() });
    const payload = { documents: [{ id: 1 }], user_id: 2 };
    await expect(client.submitJob({ jobId: 'cls_1', jobType: 'classification', payload })).resolves.toBe('queued');
    expect(router.job('cls_1')).toEqual({ job_id: 'cls_1', job_type: 'classification', payload, apiKey: KEY });
  });

  it('throws RouterUnavailableError on a refused key and when nothing listens', async () => {
    const payload = { documents: [{ id: 1 }], user_id: 2 };
    const wrong = new RouterClient({ baseUrl: router.url, apiKey: 'wrong', logger: recordingLogger() });
    await expect(wrong.submitJob({ jobId: 'cls_2', jobType: 'classification', payload })).rejects.toMatchObject({ routerStatus: 401 });
    const down = new RouterClient({ baseUrl: await closedPortUrl(), apiKey: KEY, logger: recordingLogger() });
    await expect(down.submitJob({ jobId: 'cls_3', jobType: 'classification', payload })).rejects.toBeInstanceOf(RouterUnavailableError);
  });
});

describe('resultFromOutputs', () => {
  it('takes the stored outputs, with extraction_result and metadata always present', () => {
    expect(resultFromOutputs({ extraction_result: { a: 1 }, metadata: { b: 2 } })).toEqual({ extraction_result: { a: 1 }, metadata: { b: 2 } });
    expect(resultFromOutputs({ documents: [1] })).toEqual({ extraction_result: null, metadata: null, documents: [1] });
    expect(resultFromOutputs(null)).toEqual({ extraction_result: null, metadata: null });
  });
});

describe('isExtractionJobId', () => {
  it('recognises the ids the public API gives its classification, extraction and OCR jobs, and no other', () => {
    expect(['cls_1', 'ext_a-b', 'ocr_x'].map(isExtractionJobId)).toEqual([true, true, true]);
    expect(['wf_12', 'extract_42', 'cls1', 'xcls_1', ''].map(isExtractionJobId)).toEqual([false, false, false, false, false]);
  });
});
