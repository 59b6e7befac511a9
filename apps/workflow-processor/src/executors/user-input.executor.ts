import { isPlainObject, validateAgainstSchema } from '@docflow/workflow';
import { NodeFailure, type TaskExecutor } from './executor';

/**
 * `user_input_task`: without a resume payload the run pauses (the engine
 * issues the correlation token and records the pause); with one, the payload
 * must satisfy the node's input_schema and becomes the node's output.
 */
export const userInputExecutor: TaskExecutor = async (ctx) => {
  const schema = isPlainObject(ctx.rawConfig['input_schema']) ? ctx.rawConfig['input_schema'] : {};
  if (ctx.resumePayload === undefined) return { pause: { inputSchema: schema } };
  const problems = validateAgainstSchema(schema, ctx.resumePayload, 'payload');
  if (problems.length) throw new NodeFailure('validation_error', `Resume payload does not match the input schema of node ${ctx.nodeId}: ${problems.join('; ')}`);
  return { output: ctx.resumePayload };
};
