import { NodeFailure, type TaskExecutor } from '../executors/executor';
import { chain, definition, endNode, startNode, taskNode } from '../test-support/definitions';
import { EngineHarness } from '../test-support/engine-harness';

/** Fails with `failures` in order, then succeeds; counts its calls. */
function flaky(failures: NodeFailure[]): { executor: TaskExecutor; calls: () => number } {
  let calls = 0;
  return {
    calls: () => calls,
    executor: async () => {
      const failure = failures[calls];
      calls += 1;
      if (failure) throw failure;
      return { output: { ok: true, attempt: calls } };
    },
  };
}

const transient = () => new NodeFailure('http_error', 'HTTP 503: busy', undefined, true);
const run = (executor: TaskExecutor, config: Record<string, unknown>) =>
  new EngineHarness({ executors: { rest_api_task: executor } }).run(definition([startNode(), taskNode('a', 'rest_api_task', { url: 'u', ...config }), endNode()], chain('start', 'a', 'end')));

describe('per-node retry (issue #15)', () => {
  it('tries a transient failure again within max_attempts and completes', async () => {
    const f = flaky([transient(), transient()]);
    const out = await run(f.executor, { retry: { max_attempts: 3, backoff_seconds: 0 } });
    expect(out.status).toBe('completed');
    expect(f.calls()).toBe(3);
    expect(out.outputs['a']).toEqual({ ok: true, attempt: 3 });
  });

  it('fails with the last error once the attempts are spent', async () => {
    const f = flaky([transient(), transient(), transient()]);
    const out = await run(f.executor, { retry: { max_attempts: 2, backoff_seconds: 0 } });
    expect(out).toMatchObject({ status: 'failed', failedNode: 'a', errorType: 'http_error', error: 'HTTP 503: busy' });
    expect(f.calls()).toBe(2);
  });

  it('never retries a configuration error, nor a node without a retry policy', async () => {
    const config = flaky([new NodeFailure('configuration_error', 'url must resolve to a non-empty URL')]);
    expect(await run(config.executor, { retry: { max_attempts: 5, backoff_seconds: 0 } })).toMatchObject({ status: 'failed', errorType: 'configuration_error' });
    expect(config.calls()).toBe(1);
    const plain = flaky([transient()]);
    expect(await run(plain.executor, {})).toMatchObject({ status: 'failed' });
    expect(plain.calls()).toBe(1);
  });
});
