import { JOB_STATUSES, JobStatus } from '@docflow/contracts';
import { decideTransition, isTerminal } from './job-status';

describe('decideTransition', () => {
  it.each<[JobStatus, JobStatus, 'apply' | 'ignore']>([
    ['queued', 'processing', 'apply'],
    ['queued', 'completed', 'apply'],
    ['queued', 'awaiting_user_input', 'apply'],
    ['processing', 'processing', 'apply'],
    ['processing', 'failed', 'apply'],
    ['awaiting_user_input', 'awaiting_user_input', 'apply'],
    ['awaiting_user_input', 'completed', 'apply'],
    ['awaiting_user_input', 'processing', 'ignore'],
    ['processing', 'queued', 'ignore'],
    ['completed', 'processing', 'ignore'],
    ['completed', 'completed', 'ignore'],
    ['completed', 'failed', 'ignore'],
    ['failed', 'completed', 'ignore'],
    ['failed', 'awaiting_user_input', 'ignore'],
  ])('%s -> %s: %s', (from, to, expected) => {
    expect(decideTransition(from, to)).toBe(expected);
  });

  it('never changes a terminal job, whatever arrives', () => {
    for (const from of JOB_STATUSES.filter(isTerminal)) {
      for (const to of JOB_STATUSES) expect(decideTransition(from, to)).toBe('ignore');
    }
  });

  it('treats exactly completed and failed as terminal', () => {
    expect(JOB_STATUSES.filter(isTerminal)).toEqual(['completed', 'failed']);
  });
});
