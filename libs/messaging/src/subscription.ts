import type { Channel, ConsumeMessage } from 'amqplib';
import { errorMessage, Logger, newCorrelationId, sanitizeCorrelationId } from '@docflow/service-kit';
import { annotateActiveSpan, endSpan, withIncomingSpan } from '@docflow/telemetry';
import { deliveryCountOf } from './codec';
import { NonRetryableMessageError } from './errors';
import { requeueDelay } from './topology';
import { bounded } from './util';
import type { ConsumerHandle, MessageMeta } from './types';

/** What a subscription needs from its broker. */
export interface ConsumerHost {
  readonly logger: Logger;
  readonly requeueDelayMs: number;
  /** Resolves after `ms`, or at once when the broker is closing. */
  sleep(ms: number): Promise<void>;
  isClosing(): boolean;
  /** Called when RabbitMQ cancels the subscription (queue deleted) or the channel dies under it. */
  onConsumerLost(consumer: Subscription, reason: string): void;
  /** Removes a cancelled subscription from the broker. */
  forget(consumer: Subscription): void;
}

export type Outcome = 'ack' | 'requeue' | 'reject';

/**
 * One subscription to a queue. It lives across reconnects: on each new
 * connection the broker calls `attach` with a fresh channel of its own (own
 * prefetch, own failures). Subclasses decide how deliveries are handled:
 * one by one (Consumer) or in batches (BatchConsumer).
 */
export abstract class Subscription {
  protected channel: Channel | undefined;
  private tag: string | undefined;
  /** Delivery tags of the current channel not yet acked or nacked: what a multiple-ack of the channel would cover. */
  private unsettled = new Set<number>();
  /** Id of the broker session the consumer is subscribed on. */
  sessionId: number | undefined;
  cancelled = false;
  readonly inFlight = new Set<Promise<void>>();

  constructor(
    protected readonly host: ConsumerHost,
    readonly queue: string,
    private readonly prefetch: number,
  ) {}

  /** A delivery on `channel` (never null: the broker's cancel is handled here). */
  protected abstract onMessage(channel: Channel, msg: ConsumeMessage): void;

  /** The channel changed (attached or gone): whatever was delivered on the old one is RabbitMQ's to redeliver. */
  protected onChannelChange(): void {}

  private channelChanged(): void {
    // Delivery tags count per channel; RabbitMQ requeues what the old one left unsettled.
    this.unsettled = new Set();
    this.onChannelChange();
  }

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
      this.channelChanged();
      if (!this.cancelled && !this.host.isClosing()) {
        // Deferred: when the whole connection drops, its close event follows and handles everything.
        setImmediate(() => this.host.onConsumerLost(this, 'consumer channel closed'));
      }
    });
    await channel.prefetch(this.prefetch);
    this.channel = channel;
    this.sessionId = sessionId;
    this.channelChanged();
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
    this.channelChanged();
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
        this.host.forget(this);
        await this.closeChannel();
      },
    };
  }

  /** Runs `work` as in-flight work of this subscription (shutdown waits for it); failures are logged. */
  protected track(work: Promise<void>): void {
    const tracked: Promise<void> = work
      .catch((err: unknown) => this.host.logger.error('consumer failure', { queue: this.queue, error: errorMessage(err) }))
      .finally(() => this.inFlight.delete(tracked));
    this.inFlight.add(tracked);
  }

  private onDelivery(channel: Channel, msg: ConsumeMessage | null): void {
    if (msg === null) {
      if (!this.cancelled && !this.host.isClosing()) this.host.onConsumerLost(this, 'subscription cancelled by the broker');
      return;
    }
    if (channel === this.channel) this.unsettled.add(msg.fields.deliveryTag);
    if (this.cancelled || this.host.isClosing()) {
      this.settle(channel, msg, 'requeue');
      return;
    }
    this.onMessage(channel, msg);
  }

  protected metaOf(msg: ConsumeMessage): MessageMeta {
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

  /**
   * Runs `work` (one delivery or one batch) in a consumer span when tracing
   * is on, the child of the publisher's span named by `headers`' traceparent.
   */
  protected inConsumerSpan(headers: Record<string, unknown>, attributes: Record<string, string | number | undefined>, work: () => Promise<void>): Promise<void> {
    const all = { 'messaging.system': 'rabbitmq', 'messaging.operation.type': 'process', 'messaging.destination.name': this.queue, ...attributes };
    return withIncomingSpan(`process ${this.queue}`, 'consumer', headers, all, (span) => {
      if (!span) return work();
      return work().then(
        () => endSpan(span),
        (err: unknown) => {
          endSpan(span, err);
          throw err;
        },
      );
    });
  }

  /**
   * Ends a message its handler failed on: dead-lettered when the handler
   * refused it (NonRetryableMessageError), otherwise requeued after a delay
   * that grows with its deliveries (resolves once requeued).
   */
  protected async settleFailed(meta: MessageMeta, err: unknown, settle: (outcome: 'requeue' | 'reject') => void): Promise<void> {
    const { logger } = this.host;
    if (err instanceof NonRetryableMessageError) {
      logger.warn('message rejected by its handler', { queue: this.queue, kind: meta.kind, messageId: meta.messageId, error: err.message });
      settle('reject');
      return;
    }
    logger.warn('handler failed; message will be retried', { queue: this.queue, kind: meta.kind, messageId: meta.messageId, deliveryCount: meta.deliveryCount, error: errorMessage(err) });
    await this.host.sleep(requeueDelay(meta.deliveryCount, this.host.requeueDelayMs));
    settle('requeue');
  }

  /** Ack or nack on the channel the message came on; when that channel is gone, RabbitMQ has already requeued it. */
  protected settle(channel: Channel, msg: ConsumeMessage, outcome: Outcome): void {
    annotateOutcome(outcome);
    this.sendSettle(channel, msg, outcome);
  }

  /**
   * Acks handled deliveries of `channel` (their outcome already noted on the
   * span) with the fewest frames and nothing else: a multiple-ack covers
   * every unsettled delivery of the channel up to its tag, so it goes for the
   * highest handled tag below every other unsettled one (when that spares a
   * frame), and the rest are acked one by one. A tag already settled is
   * skipped (a second ack is a channel error). On a channel no longer
   * current nothing is sent: RabbitMQ has requeued its deliveries.
   */
  protected ackHandled(channel: Channel, handled: readonly ConsumeMessage[]): void {
    if (channel !== this.channel) return;
    const open = handled.filter((m) => this.unsettled.has(m.fields.deliveryTag)).sort((a, b) => a.fields.deliveryTag - b.fields.deliveryTag);
    const tags = new Set(open.map((m) => m.fields.deliveryTag));
    let lowestOther = Number.POSITIVE_INFINITY;
    for (const t of this.unsettled) if (!tags.has(t) && t < lowestOther) lowestOther = t;
    const below = open.filter((m) => m.fields.deliveryTag < lowestOther).length;
    if (below > 1) this.sendSettle(channel, open[below - 1] as ConsumeMessage, 'ack', true);
    for (const m of below > 1 ? open.slice(below) : open) this.sendSettle(channel, m, 'ack');
  }

  /** The ack or nack frame alone (the outcome already noted on the span); a multiple-ack settles every unsettled tag up to its own. */
  private sendSettle(channel: Channel, msg: ConsumeMessage, outcome: Outcome, multiple = false): void {
    if (channel === this.channel) {
      const tag = msg.fields.deliveryTag;
      if (multiple) for (const t of this.unsettled) if (t <= tag) this.unsettled.delete(t);
      this.unsettled.delete(tag);
    }
    try {
      switch (outcome) {
        case 'ack':
          channel.ack(msg, multiple);
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

/** Notes a delivery's outcome on the active consumer span (tracing on). */
export function annotateOutcome(outcome: Outcome): void {
  annotateActiveSpan({ 'docflow.message.outcome': outcome }, outcome === 'ack' ? undefined : `message ${outcome === 'reject' ? 'dead-lettered' : 'requeued'}`);
}
