import { JOB_STATUSES, type JobStatus } from '@docflow/contracts';
import { isTerminal, JOB_STATUS_RANK, lastEffectiveUpdates } from './job-status';

describe('job status order', () => {
  it('ranks queued < processing < awaiting_user_input < terminal', () => {
    expect(JOB_STATUS_RANK.queued).toBeLessThan(JOB_STATUS_RANK.processing);
    expect(JOB_STATUS_RANK.processing).toBeLessThan(JOB_STATUS_RANK.awaiting_user_input);
    expect(JOB_STATUS_RANK.awaiting_user_input).toBeLessThan(JOB_STATUS_RANK.completed);
    expect(JOB_STATUS_RANK.completed).toBe(JOB_STATUS_RANK.failed);
  });

  it('treats exactly completed and failed as terminal', () => {
    expect(JOB_STATUSES.filter(isTerminal)).toEqual(['completed', 'failed']);
  });
});

describe('lastEffectiveUpdates', () => {
  const u = (jobId: string, status: JobStatus, n: number) => ({ jobId, status, n });

  it('keeps the update that applying them in order would leave, one per job', () => {
    const out = lastEffectiveUpdates([u('a', 'processing', 1), u('b', 'processing', 2), u('a', 'completed', 3), u('a', 'processing', 4), u('b', 'awaiting_user_input', 5), u('b', 'processing', 6)]);
    expect(out).toEqual([u('a', 'completed', 3), u('b', 'awaiting_user_input', 5)]);
  });

  it('keeps the first terminal update and the last of equal rank', () => {
    expect(lastEffectiveUpdates([u('a', 'failed', 1), u('a', 'completed', 2)])).toEqual([u('a', 'failed', 1)]);
    expect(lastEffectiveUpdates([u('a', 'processing', 1), u('a', 'processing', 2), u('a', 'queued', 3)])).toEqual([u('a', 'processing', 2)]);
  });
});
