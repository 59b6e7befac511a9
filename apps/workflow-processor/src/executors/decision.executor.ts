import { evaluateDecision } from '@docflow/workflow';
import type { TaskExecutor } from './executor';

/**
 * `decision` (spec 2.8): compares the operands against the workflow scope;
 * the engine then runs only the edges of the taken branch. Operands are
 * resolved by evaluateDecision itself (JSONPath or templated literal), so it
 * gets the config as written.
 */
export const decisionExecutor: TaskExecutor = async (ctx) => ({ output: evaluateDecision(ctx.rawConfig, ctx.scope) });
