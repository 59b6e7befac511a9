import { createOutboundClient } from '@docflow/outbound-http';
import { TASK_TYPES } from '@docflow/workflow';
import { buildExecutors } from './build-executors';
import { EXECUTOR_IDS, ExecutorRegistry } from './executor-registry';
import { notAvailableExecutor } from './not-available/not-available';
import { testMeta } from '../test-support/engine-harness';
import type { NodeContext } from './executor';
import { silentLogger } from '@docflow/service-kit';

const noop = notAvailableExecutor('x');

describe('executor registry', () => {
  it('has exactly one executor for each of the 13 task types and custom_task', () => {
    expect(TASK_TYPES).toHaveLength(13);
    expect(EXECUTOR_IDS).toHaveLength(14);
    const registry = buildExecutors({ outbound: createOutboundClient(), mailer: { send: async () => ({ messageId: '', accepted: [], rejected: [] }) }, restDefaultTimeoutSeconds: 30 });
    for (const id of EXECUTOR_IDS) expect(registry.has(id)).toBe(true);
  });

  it('refuses a duplicate, a missing and an unknown executor', () => {
    expect(() => new ExecutorRegistry().register('llm_task', noop).register('llm_task', noop)).toThrow("a handler for 'llm_task' is already registered");
    const partial = new ExecutorRegistry();
    for (const id of EXECUTOR_IDS.filter((i) => i !== 'wait_task')) partial.register(id, noop);
    expect(() => partial.assertComplete()).toThrow("no handler registered for 'wait_task'");
    partial.register('wait_task', noop).register('teleport_task', noop);
    expect(() => partial.assertComplete()).toThrow("unknown task types 'teleport_task'");
  });

  it.each(['classification_task', 'extraction_task', 'llm_task', 'summarization_task', 'classify_and_extract', 'cloud_drive_fetch_task', 'rag_enable_task', 'rag_query_task'])(
    '%s fails as not_available, never with a made-up result',
    async (taskType) => {
      const registry = buildExecutors({ outbound: createOutboundClient(), mailer: { send: async () => ({ messageId: '', accepted: [], rejected: [] }) }, restDefaultTimeoutSeconds: 30 });
      const ctx = { nodeId: 'n', taskType, config: {}, rawConfig: {}, signal: new AbortController().signal, logger: silentLogger } as unknown as NodeContext;
      await expect(registry.run(taskType, ctx, testMeta)).rejects.toMatchObject({ errorType: 'not_available', message: `${taskType} is not available in this build yet` });
    },
  );
});
