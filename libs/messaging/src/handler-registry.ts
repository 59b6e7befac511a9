import { NonRetryableMessageError } from './errors';
import type { MessageMeta } from './types';

export type KindHandler<M> = (msg: M, meta: MessageMeta) => Promise<void>;

/**
 * Maps each message kind to exactly one handler. A duplicate registration
 * throws at once; `assertComplete` throws naming every kind without a
 * handler, so a service refuses to start instead of dead-lettering work.
 */
export class HandlerRegistry<K extends string, M> {
  private readonly handlers = new Map<K, KindHandler<M>>();

  constructor(private readonly name = 'handler registry') {}

  register(kind: K, handler: KindHandler<M>): this {
    if (this.handlers.has(kind)) throw new Error(`${this.name}: a handler for '${kind}' is already registered`);
    this.handlers.set(kind, handler);
    return this;
  }

  has(kind: string): kind is K {
    return this.handlers.has(kind as K);
  }

  kinds(): K[] {
    return [...this.handlers.keys()];
  }

  /** Throws unless every kind in `kinds` has a handler. */
  assertComplete(kinds: readonly K[]): void {
    const missing = kinds.filter((k) => !this.handlers.has(k));
    if (missing.length) throw new Error(`${this.name}: no handler registered for ${missing.map((k) => `'${k}'`).join(', ')}`);
  }

  /** Runs the kind's handler. An unknown kind can never succeed, so it is not retried (dead-lettered). */
  dispatch(kind: string, msg: M, meta: MessageMeta): Promise<void> {
    const handler = this.handlers.get(kind as K);
    if (!handler) return Promise.reject(new NonRetryableMessageError(`${this.name}: no handler for kind '${kind}'`));
    return handler(msg, meta);
  }
}
