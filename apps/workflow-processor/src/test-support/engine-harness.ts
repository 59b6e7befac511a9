import type { MessageMeta } from '@docflow/messaging';
import { Metrics, silentLogger } from '@docflow/service-kit';
import { buildGraph, type WorkflowDefinition } from '@docflow/workflow';
import { controlExecutor } from '../executors/control.executor';
import { decisionExecutor } from '../executors/decision.executor';
import type { TaskExecutor } from '../executors/executor';
import { EXECUTOR_IDS, ExecutorRegistry } from '../executors/executor-registry';
import { notAvailableExecutor } from '../executors/not-available/not-available';
import { userInputExecutor } from '../executors/user-input.executor';
import type { RunOutcome, RunRequest } from '../engine/run-types';
import { type ExecutionControl, type RunLimits, WorkflowRun } from '../engine/workflow-run';
import { createWorkflowMetrics, type WorkflowMetrics } from '../metrics';
import { MemoryCheckpoints } from './memory-checkpoints';

export const testMeta: MessageMeta = {
  deliveryCount: 1,
  redelivered: false,
  headers: {},
  correlationId: 'test-correlation',
  messageId: 'test-message',
  queue: 'workflow_queue',
};

/** A registry with the real control, decision and user-input executors, `overrides` for the others, not-available elsewhere. */
export function testExecutors(overrides: Record<string, TaskExecutor>): ExecutorRegistry {
  const registry = new ExecutorRegistry();
  const defaults: Record<string, TaskExecutor> = { custom_task: controlExecutor, decision: decisionExecutor, user_input_task: userInputExecutor };
  for (const id of EXECUTOR_IDS) registry.register(id, overrides[id] ?? defaults[id] ?? notAvailableExecutor(id));
  registry.assertComplete();
  return registry;
}

let sharedMetrics: WorkflowMetrics | undefined;
export function testMetrics(): WorkflowMetrics {
  sharedMetrics ??= createWorkflowMetrics(new Metrics('workflow-processor-test'));
  return sharedMetrics;
}

export interface EngineHarnessOptions {
  executors: Record<string, TaskExecutor>;
  checkpoints?: MemoryCheckpoints;
  limits?: RunLimits;
  control?: ExecutionControl;
}

/** Runs definitions through WorkflowRun with fake executors and in-memory checkpoints. */
export class EngineHarness {
  readonly checkpoints: MemoryCheckpoints;
  readonly progress: string[][] = [];
  private readonly registry: ExecutorRegistry;
  private readonly limits: RunLimits | undefined;
  private readonly control: ExecutionControl | undefined;

  constructor(options: EngineHarnessOptions) {
    this.registry = testExecutors(options.executors);
    this.checkpoints = options.checkpoints ?? new MemoryCheckpoints();
    this.limits = options.limits;
    this.control = options.control;
  }

  run(def: Record<string, unknown>, extra: Partial<RunRequest> = {}): Promise<RunOutcome> {
    const request: RunRequest = {
      jobId: 'wf_1',
      executionKey: 'execution:1',
      executionId: 1,
      graph: buildGraph(def as unknown as WorkflowDefinition),
      inputs: {},
      meta: testMeta,
      stopSignal: new AbortController().signal,
      logger: silentLogger,
      onProgress: (states) => this.progress.push(Object.entries(states).map(([id, s]) => `${id}:${s.status}`)),
      ...extra,
    };
    const deps = {
      executors: this.registry,
      checkpoints: this.checkpoints,
      metrics: testMetrics(),
      ...(this.limits ? { limits: this.limits } : {}),
      ...(this.control ? { control: this.control } : {}),
    };
    return new WorkflowRun(deps, request).execute();
  }
}

/** A promise with its resolve function, for steering fake executors. */
export function deferred<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

/** Rejects after `ms` so a test that would otherwise hang fails with a reason. */
export function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const guard = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what} did not happen within ${ms} ms`)), ms)));
  return Promise.race([promise, guard]).finally(() => clearTimeout(timer));
}
