import { JobMessageV1, ResultMessage } from '@docflow/contracts';
import type { MessageMeta } from '@docflow/messaging';
import { buildJobHandlers, EXTRACTION_JOB_TYPES } from './job-handlers';

const meta = { deliveryCount: 1, redelivered: false, headers: {}, correlationId: 'c', messageId: 'm', queue: 'extraction_queue' } as MessageMeta;

describe('extraction job handlers', () => {
  it('covers exactly the three extraction job types', () => {
    expect([...EXTRACTION_JOB_TYPES].sort()).toEqual(['OCR', 'classification', 'document_extraction']);
    const registry = buildJobHandlers(async () => undefined);
    expect(registry.kinds().sort()).toEqual(['OCR', 'classification', 'document_extraction']);
  });

  it('answers each job with a failed result naming why, never a fake success', async () => {
    const published: ResultMessage[] = [];
    const registry = buildJobHandlers(async (r) => void published.push(r));
    const job = Object.assign(new JobMessageV1(), { version: 1, job_id: 'cls_1', job_type: 'classification', payload: {}, submitted_at: new Date().toISOString() });
    await registry.dispatch('classification', job, meta);
    expect(published).toHaveLength(1);
    expect(published[0]).toMatchObject({ job_id: 'cls_1', status: 'failed', error_type: 'not_available' });
    expect(published[0]!.error).toContain('classification');
  });

  it('refuses a job type it does not handle', async () => {
    const registry = buildJobHandlers(async () => undefined);
    await expect(registry.dispatch('task_based_workflow', {} as JobMessageV1, meta)).rejects.toThrow(/no handler/);
  });
});
