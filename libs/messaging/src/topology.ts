import { DEFAULT_DELIVERY_LIMIT, deadLetterQueueOf } from '@docflow/contracts';

export interface WorkQueueOptions {
  /** Deliveries before RabbitMQ dead-letters the message. Every declarer of a queue must use the same value. */
  deliveryLimit?: number;
}

export interface WorkQueueDeclaration {
  name: string;
  deadLetterQueue: string;
  deliveryLimit: number;
  /** `arguments` of the work queue's queue.declare. */
  arguments: Record<string, string | number>;
}

/**
 * A durable quorum work queue whose rejected and over-delivered messages go,
 * through the default exchange, to `<name>.dlq`. RabbitMQ 3.10 has no default
 * delivery limit and no policy here, so both are set on the queue itself.
 */
export function workQueueDeclaration(name: string, options: WorkQueueOptions = {}): WorkQueueDeclaration {
  const deliveryLimit = options.deliveryLimit ?? DEFAULT_DELIVERY_LIMIT;
  if (!Number.isInteger(deliveryLimit) || deliveryLimit < 1) throw new Error(`deliveryLimit of ${name} must be a positive integer`);
  const deadLetterQueue = deadLetterQueueOf(name);
  return {
    name,
    deadLetterQueue,
    deliveryLimit,
    arguments: {
      'x-queue-type': 'quorum',
      'x-delivery-limit': deliveryLimit,
      'x-dead-letter-exchange': '',
      'x-dead-letter-routing-key': deadLetterQueue,
    },
  };
}

/** Delay before the next reconnect attempt: exponential from `initialMs`, capped at `maxMs`, with +-20 % jitter under the cap. */
export function backoffDelay(attempt: number, initialMs: number, maxMs: number, random: () => number = Math.random): number {
  const exp = initialMs * 2 ** Math.max(0, Math.min(attempt - 1, 30));
  const base = Math.min(exp, maxMs);
  const jittered = base * (0.8 + 0.4 * random());
  return Math.round(Math.min(jittered, maxMs));
}

/** Delay before a failed message is requeued: grows with its delivery count so a failing message does not spin. */
export function requeueDelay(deliveryCount: number, baseMs: number, maxMs = 5000): number {
  return Math.min(maxMs, baseMs * Math.max(1, deliveryCount));
}
