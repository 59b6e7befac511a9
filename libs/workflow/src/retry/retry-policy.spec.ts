import { validateDefinition } from '../validation/validate-definition';
import { NO_RETRY, retryConfigErrors, retryDelayMs, retryPolicyOf } from './retry-policy';

const restWith = (retry: unknown) => ({
  nodes: [{ id: 'r', type: 'task', position: { x: 0, y: 0 }, data: { label: 'r', task_type: 'rest_api_task', config: { url: 'https://api.example.test/x', retry } } }],
  edges: [],
});

describe('retry policy (issue #15)', () => {
  it('reads max_attempts and backoff_seconds, defaulting the backoff to 1 s', () => {
    expect(retryPolicyOf({ retry: { max_attempts: 3, backoff_seconds: 0.5 } })).toEqual({ maxAttempts: 3, backoffSeconds: 0.5 });
    expect(retryPolicyOf({ retry: { max_attempts: 2 } })).toEqual({ maxAttempts: 2, backoffSeconds: 1 });
    expect(retryPolicyOf({})).toBe(NO_RETRY);
  });

  it('doubles the wait after each attempt, capped at 300 s', () => {
    const p = { maxAttempts: 10, backoffSeconds: 2 };
    expect([1, 2, 3].map((a) => retryDelayMs(p, a))).toEqual([2000, 4000, 8000]);
    expect(retryDelayMs(p, 9)).toBe(300_000);
  });

  it('refuses out-of-range or unknown settings with the node named', () => {
    expect(retryConfigErrors({ max_attempts: 0 }, 'x.retry')).toEqual(['x.retry.max_attempts must be an integer from 1 to 10']);
    expect(retryConfigErrors({ max_attempts: 11, backoff_seconds: 301, tries: 1 }, 'x.retry')).toEqual([
      'x.retry.tries is not a retry setting (max_attempts, backoff_seconds)',
      'x.retry.max_attempts must be an integer from 1 to 10',
      'x.retry.backoff_seconds must be a number from 0 to 300',
    ]);
    expect(retryConfigErrors('3', 'x.retry')).toEqual(['x.retry must be an object {max_attempts, backoff_seconds}']);
    expect(validateDefinition(restWith({ max_attempts: 3, backoff_seconds: 1 }))).toEqual([]);
    expect(validateDefinition(restWith({ max_attempts: 50 }))).toEqual(['Node r (rest_api_task): config.retry.max_attempts must be an integer from 1 to 10']);
  });
});
