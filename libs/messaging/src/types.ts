import type { Logger } from '@docflow/service-kit';

/** What a handler learns about the delivery besides the validated message. */
export interface MessageMeta {
  /** 1 on the first delivery, then 2, 3, ... (from the quorum queue's `x-delivery-count`). */
  deliveryCount: number;
  redelivered: boolean;
  headers: Record<string, unknown>;
  correlationId: string;
  messageId: string;
  /** The queue the message was consumed from. */
  queue: string;
  /** The `kind` header the publisher set (its contract class name), when present. */
  kind?: string;
}

export type MessageHandler<T> = (msg: T, meta: MessageMeta) => Promise<void>;

export interface ConsumeOptions {
  /** Unacknowledged messages this consumer holds at most. Default 16. */
  prefetch?: number;
  /**
   * Acks requested while one batch of microtasks runs (handlers resumed by
   * one socket read, e.g. one frame of publisher confirms) sent together
   * after it: the handled deliveries with no unsettled delivery below them
   * as one multiple-ack, the others one by one. Each message is still acked
   * only after its handler resolved. Default false.
   */
  coalesceAcks?: boolean;
}

/** One validated message of a batch and its delivery. */
export interface BatchItem<T> {
  msg: T;
  meta: MessageMeta;
}

/**
 * Applies a batch all or nothing (one transaction): resolving means every
 * message's effect is committed; throwing means none is (the consumer then
 * hands each message over again alone).
 */
export type BatchHandler<T> = (batch: readonly BatchItem<T>[]) => Promise<void>;

export interface BatchConsumeOptions extends ConsumeOptions {
  /** Messages handed to the handler at most at once. Default half the prefetch, so the next batch arrives while one is applied. */
  maxBatch?: number;
  /**
   * How long a batch smaller than `maxBatch` may wait for more messages,
   * counted from its oldest message's delivery (default 0: it goes at the
   * next macrotask). For consumers no caller waits on (the router's record of
   * results): fewer, larger batches, so fewer statements, commits and acks.
   */
  lingerMs?: number;
}

export interface PublishOptions {
  headers?: Record<string, string | number | boolean>;
  /** Defaults to a random UUID. */
  messageId?: string;
  /** Publish to this exchange (declared with `assertFanoutExchange`), the queue argument being the routing key. */
  exchange?: string;
}

export interface ConsumerHandle {
  readonly queue: string;
  /** True while subscribed on the current connection. */
  isActive(): boolean;
  /** Stops consuming, waits (bounded) for in-flight handlers, and forgets the consumer: it is not re-created on reconnect. */
  cancel(timeoutMs?: number): Promise<void>;
}

export type BrokerState = 'connected' | 'disconnected';

export interface BrokerOptions {
  /** amqp:// or amqps:// URL, vhost included. */
  url: string;
  logger: Logger;
  /** Connection name shown by RabbitMQ, e.g. the service name. */
  name: string;
  reconnect?: { initialMs?: number; maxMs?: number };
  /** How long a publish waits for the broker's confirm. Default 10000. */
  publishTimeoutMs?: number;
  /** Base delay before a failed message is requeued; grows with its delivery count, capped at 5 s. Default 250. */
  requeueDelayMs?: number;
  /** AMQP heartbeat in seconds unless the URL sets one. Default 15. */
  heartbeatSeconds?: number;
}

export interface QueueStats {
  messageCount: number;
  consumerCount: number;
}
