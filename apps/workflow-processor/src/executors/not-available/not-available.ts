import { NodeFailure, type TaskExecutor } from '../executor';

/**
 * A task type whose engine is not part of this build: the node fails with
 * `not_available` and says so. Never a made-up result.
 */
export function notAvailableExecutor(taskType: string): TaskExecutor {
  return async () => {
    throw new NodeFailure('not_available', `${taskType} is not available in this build yet`);
  };
}
