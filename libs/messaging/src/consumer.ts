import type { Channel, ConsumeMessage } from 'amqplib';
import { errorMessage, Logger, newCorrelationId, runWithContext, sanitizeCorrelationId } from '@docflow/service-kit';
import { annotateActiveSpan, endSpan, withIncomingSpan } from '@docflow/telemetry';
import { decodeMessage, deliveryCountOf } from './codec';
import { NonRetryableMessageError } from './errors';
import { requeueDelay } from './topology';
import { bounded } from './util';
import type { ConsumerHandle, MessageHandler, MessageMeta } from './types';

/** What a consumer needs from its broker. */
export interface ConsumerHost {
  readonly logger: Logger;
  readonly requeueDelayMs: number;
  /** Resolves after `ms`, or at once when the broker is closing. */
  sleep(ms: number): Promise<void>;
  isClosing(): boolean;
  /** Called when RabbitMQ cancels the subscription (queue deleted) or the channel dies under it. */
  onConsumerLost(consumer: Consumer<object>, reason: string): void;
  /** Removes a cancelled consumer from the broker. */
  forget(consumer: Consumer<object>): void;
}

/**
 * One subscription. It lives across reconnects: on each new connection the
 * broker calls `attach` with a fresh channel of its own (own prefetch, own
 * failures).
 */
export class Consumer<T extends object> {
  private channel: Channel | undefined;
  private tag: string | undefined;
  /** Id of the broker session the consumer is subscribed on. */
  sessionId: number | undefined;
  cancelled = false;
  readonly inFlight = new Set<Promise<void>>();

  constructor(
    private readonly host: ConsumerHost,
    readonly queue: string,
    private readonly cls: new () => T,
    private readonly handler: MessageHandler<T>,
    private readonly prefetch: number,
  ) {}

  isActive(): boolean {
    return this.channel !== undefined && this.tag !== undefined && !this.cancelled;
  }

  /** Subscribes on a fresh channel of the given session. */
  async attach(sessionId: number, channel: Channel): Promise<void> {
    this.detach();
    channel.on('error', (err: Error) => this.host.logger.warn('consumer channel error', { queue: this.queue, error: err.message }));
    channel.on('close', () => {
      if (this.channel !== channel) return;
      this.channel = undefined;
      this.tag = undefined;
      if (!this.cancelled && !this.host.isClosing()) {
        // Deferred: when the whole connection drops, its close event follows and handles everything.
        setImmediate(() => this.host.onConsumerLost(this as unknown as Consumer<object>, 'consumer channel closed'));
      }
    });
    await channel.prefetch(this.prefetch);
    this.channel = channel;
    this.sessionId = sessionId;
    const { consumerTag } = await channel.consume(this.queue, (msg) => this.onDelivery(channel, msg), { noAck: false });
    if (this.channel !== channel) return;
    this.tag = consumerTag;
    if (this.cancelled) await this.stop();
  }

  /** Forgets the current channel (the connection is gone). */
  detach(): void {
    this.channel = undefined;
    this.tag = undefined;
    this.sessionId = undefined;
  }

  /** Stops the subscription; deliveries already on their way are requeued. */
  async stop(): Promise<void> {
    this.cancelled = true;
    const { channel, tag } = this;
    if (!channel || !tag) return;
    this.tag = undefined;
    await channel.cancel(tag).catch(() => undefined);
  }

  async waitForInFlight(timeoutMs: number): Promise<void> {
    if (this.inFlight.size) await bounded(Promise.allSettled([...this.inFlight]), timeoutMs);
  }

  /**
   * Closes the channel with a close/close-ok exchange. RabbitMQ 3.10 quorum
   * queues can lose an ack that is immediately followed by the connection
   * closing (the message comes back); a channel close first makes it stick.
   */
  async closeChannel(timeoutMs = 2000): Promise<void> {
    const channel = this.channel;
    this.detach();
    if (channel) await bounded(channel.close(), timeoutMs);
  }

  handle(): ConsumerHandle {
    return {
      queue: this.queue,
      isActive: () => this.isActive(),
      cancel: async (timeoutMs = 10000) => {
        await this.stop();
        await this.waitForInFlight(timeoutMs);
        this.host.forget(this as unknown as Consumer<object>);
        await this.closeChannel();
      },
    };
  }

  private onDelivery(channel: Channel, msg: ConsumeMessage | null): void {
    if (msg === null) {
      if (!this.cancelled && !this.host.isClosing()) this.host.onConsumerLost(this as unknown as Consumer<object>, 'subscription cancelled by the broker');
      return;
    }
    if (this.cancelled || this.host.isClosing()) {
      this.settle(channel, msg, 'requeue');
      return;
    }
    const work: Promise<void> = this.process(channel, msg)
      .catch((err: unknown) => this.host.logger.error('consumer failure', { queue: this.queue, error: errorMessage(err) }))
      .finally(() => this.inFlight.delete(work));
    this.inFlight.add(work);
  }

  private metaOf(msg: ConsumeMessage): MessageMeta {
    const headers: Record<string, unknown> = { ...(msg.properties.headers ?? {}) };
    const props = msg.properties as { messageId?: unknown; correlationId?: unknown };
    const messageId = typeof props.messageId === 'string' && props.messageId ? props.messageId : `${this.queue}:${msg.fields.deliveryTag}`;
    const correlationId = sanitizeCorrelationId(headers['x-correlation-id']) ?? sanitizeCorrelationId(props.correlationId) ?? newCorrelationId();
    const kind = typeof headers['kind'] === 'string' ? headers['kind'] : undefined;
    return {
      deliveryCount: deliveryCountOf(headers, msg.fields.redelivered),
      redelivered: msg.fields.redelivered,
      headers,
      correlationId,
      messageId,
      queue: this.queue,
      kind,
    };
  }

  /** One delivery in a consumer span (tracing on), the child of the publisher's span named by the message's `traceparent` header. */
  private process(channel: Channel, msg: ConsumeMessage): Promise<void> {
    const meta = this.metaOf(msg);
    const attributes = {
      'messaging.system': 'rabbitmq',
      'messaging.operation.type': 'process',
      'messaging.destination.name': this.queue,
      'messaging.message.id': meta.messageId,
      'messaging.rabbitmq.message.delivery_count': meta.deliveryCount,
      'docflow.correlation_id': meta.correlationId,
    };
    return withIncomingSpan(`process ${this.queue}`, 'consumer', meta.headers, attributes, (span) => {
      if (!span) return this.handleDelivery(channel, msg, meta);
      return this.handleDelivery(channel, msg, meta).then(
        () => endSpan(span),
        (err: unknown) => {
          endSpan(span, err);
          throw err;
        },
      );
    });
  }

  private handleDelivery(channel: Channel, msg: ConsumeMessage, meta: MessageMeta): Promise<void> {
    return runWithContext({ correlationId: meta.correlationId, messageId: meta.messageId }, async () => {
      const { logger } = this.host;
      const decoded = decodeMessage(this.cls, msg.content);
      if (!decoded.ok) {
        logger.warn('message rejected: does not match its contract', { queue: this.queue, kind: meta.kind, expected: this.cls.name, errors: decoded.errors });
        this.settle(channel, msg, 'reject');
        return;
      }
      try {
        await this.handler(decoded.value, meta);
      } catch (err) {
        if (err instanceof NonRetryableMessageError) {
          logger.warn('message rejected by its handler', { queue: this.queue, kind: meta.kind, error: err.message });
          this.settle(channel, msg, 'reject');
          return;
        }
        logger.warn('handler failed; message will be retried', { queue: this.queue, kind: meta.kind, deliveryCount: meta.deliveryCount, error: errorMessage(err) });
        await this.host.sleep(requeueDelay(meta.deliveryCount, this.host.requeueDelayMs));
        this.settle(channel, msg, 'requeue');
        return;
      }
      this.settle(channel, msg, 'ack');
    });
  }

  /** Ack or nack on the channel the message came on; when that channel is gone, RabbitMQ has already requeued it. */
  private settle(channel: Channel, msg: ConsumeMessage, outcome: 'ack' | 'requeue' | 'reject'): void {
    annotateActiveSpan({ 'docflow.message.outcome': outcome }, outcome === 'ack' ? undefined : `message ${outcome === 'reject' ? 'dead-lettered' : 'requeued'}`);
    try {
      switch (outcome) {
        case 'ack':
          channel.ack(msg);
          return;
        case 'requeue':
          channel.nack(msg, false, true);
          return;
        case 'reject':
          channel.nack(msg, false, false);
          return;
        default: {
          const never: never = outcome;
          throw new Error(`unknown outcome ${String(never)}`);
        }
      }
    } catch (err) {
      this.host.logger.warn('could not settle message; the broker redelivers it', { queue: this.queue, outcome, error: errorMessage(err) });
    }
  }
}
