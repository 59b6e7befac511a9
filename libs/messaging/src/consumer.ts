import type { Channel, ConsumeMessage } from 'amqplib';
import { runWithContext } from '@docflow/service-kit';
import { decodeMessage } from './codec';
import { annotateOutcome, type ConsumerHost, Subscription } from './subscription';
import type { MessageHandler, MessageMeta } from './types';

export type { ConsumerHost } from './subscription';

/**
 * A subscription whose handler takes one message at a time, each acked on
 * its own; with `coalesceAcks`, the acks requested while one batch of
 * microtasks runs (the handlers one socket read resumed) go together after
 * it (one multiple-ack where no unsettled delivery lies below them), which spares RabbitMQ a settle command per message when
 * handlers finish together (a quorum queue writes each to its log).
 */
export class Consumer<T extends object> extends Subscription {
  /** Handled deliveries of the current channel whose ack waits for the current microtasks to finish. */
  private pendingAcks: ConsumeMessage[] = [];
  private flushScheduled = false;

  constructor(
    host: ConsumerHost,
    queue: string,
    private readonly cls: new () => T,
    private readonly handler: MessageHandler<T>,
    prefetch: number,
    private readonly coalesceAcks = false,
  ) {
    super(host, queue, prefetch);
  }

  protected override onChannelChange(): void {
    // What the old channel delivered and nobody settled is requeued by RabbitMQ with the channel.
    this.pendingAcks = [];
  }

  protected onMessage(channel: Channel, msg: ConsumeMessage): void {
    this.track(this.process(channel, msg));
  }

  /** Acks a handled delivery: now, or with coalesceAcks once the microtasks queued now have run. */
  private ack(channel: Channel, msg: ConsumeMessage): void {
    if (!this.coalesceAcks || channel !== this.channel) {
      this.settle(channel, msg, 'ack');
      return;
    }
    annotateOutcome('ack');
    this.pendingAcks.push(msg);
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    // After the microtasks queued now have run, not at the next turn: the handlers resumed by one confirm frame all
    // finish in this drain, and a job's ack (which frees its prefetch slot) waits for no other I/O of the process.
    process.nextTick(() => {
      this.flushScheduled = false;
      this.flushAcks();
    });
  }

  /** Sends the waiting acks (Subscription.ackHandled); when the channel is gone, RabbitMQ has already requeued them. */
  private flushAcks(): void {
    const { channel, pendingAcks } = this;
    this.pendingAcks = [];
    if (channel) this.ackHandled(channel, pendingAcks);
  }

  /** Acks still waiting are sent before the channel closes (a close right after an ack can lose it). */
  override async closeChannel(timeoutMs = 2000): Promise<void> {
    this.flushAcks();
    await super.closeChannel(timeoutMs);
  }

  /** One delivery in a consumer span (tracing on), the child of the publisher's span named by the message's `traceparent` header. */
  private process(channel: Channel, msg: ConsumeMessage): Promise<void> {
    const meta = this.metaOf(msg);
    const attributes = { 'messaging.message.id': meta.messageId, 'messaging.rabbitmq.message.delivery_count': meta.deliveryCount, 'docflow.correlation_id': meta.correlationId };
    return this.inConsumerSpan(meta.headers, attributes, () => this.handleDelivery(channel, msg, meta));
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
        await this.settleFailed(meta, err, (outcome) => this.settle(channel, msg, outcome));
        return;
      }
      this.ack(channel, msg);
    });
  }
}
