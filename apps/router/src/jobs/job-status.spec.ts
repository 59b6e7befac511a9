import { JOB_STATUSES } from '@docflow/contracts';
import { isTerminal, JOB_STATUS_RANK } from './job-status';

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
