import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';

/** Ids that travel with one unit of work (an HTTP request or a consumed message). */
export interface WorkContext {
  correlationId: string;
  [key: string]: string | number | undefined;
}

const storage = new AsyncLocalStorage<WorkContext>();

export const CORRELATION_HEADER = 'x-correlation-id';

export function currentContext(): WorkContext | undefined {
  return storage.getStore();
}

export function currentCorrelationId(): string | undefined {
  return storage.getStore()?.correlationId;
}

export function runWithContext<T>(context: WorkContext, fn: () => T): T {
  return storage.run(context, fn);
}

export function newCorrelationId(): string {
  return randomUUID();
}

/** Accepts a caller-supplied id only when it is a short, printable token. */
export function sanitizeCorrelationId(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  return /^[A-Za-z0-9._:-]{1,128}$/.test(value) ? value : undefined;
}
