import type { TaskExecutor } from './executor';

/**
 * `custom_task`: start, end, input and output nodes run nothing. The start
 * node's output is the execution inputs, so `{{start.field}}` works too.
 */
export const controlExecutor: TaskExecutor = async (ctx) => ({ output: ctx.nodeType === 'start' ? ctx.inputs : {} });
