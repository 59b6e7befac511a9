import { CONTROL_TASK_TYPE, TASK_TYPES } from '@docflow/workflow';
import { HandlerRegistry, type MessageMeta } from '@docflow/messaging';
import type { ExecutorOutcome, NodeContext, TaskExecutor } from './executor';

/** Every id that needs exactly one executor: the 13 registry task types plus `custom_task` (control nodes). */
export const EXECUTOR_IDS: readonly string[] = [...TASK_TYPES.map((t) => t.id), CONTROL_TASK_TYPE];

interface NodeCall {
  context: NodeContext;
  outcome?: ExecutorOutcome;
}

/**
 * Maps each task type id to exactly one executor, on the messaging lib's
 * HandlerRegistry: a duplicate registration throws, and `assertComplete`
 * refuses a registry that misses one of EXECUTOR_IDS or has a stray id.
 */
export class ExecutorRegistry {
  private readonly registry = new HandlerRegistry<string, NodeCall>('task executor registry');

  register(taskType: string, executor: TaskExecutor): this {
    this.registry.register(taskType, async (call) => {
      call.outcome = await executor(call.context);
    });
    return this;
  }

  assertComplete(): void {
    this.registry.assertComplete(EXECUTOR_IDS);
    const stray = this.registry.kinds().filter((k) => !EXECUTOR_IDS.includes(k));
    if (stray.length) throw new Error(`task executor registry: executors for unknown task types ${stray.map((k) => `'${k}'`).join(', ')}`);
  }

  has(taskType: string): boolean {
    return this.registry.has(taskType);
  }

  async run(taskType: string, context: NodeContext, meta: MessageMeta): Promise<ExecutorOutcome> {
    const call: NodeCall = { context };
    await this.registry.dispatch(taskType, call, meta);
    if (!call.outcome) throw new Error(`executor for ${taskType} returned no outcome`);
    return call.outcome;
  }
}
