import type { Channel, ConsumeMessage } from 'amqplib';
import { runWithContext } from '@docflow/service-kit';
import { decodeMessage } from './codec';
import { type ConsumerHost, Subscription } from './subscription';
import type { MessageHandler, MessageMeta } from './types';

export type { ConsumerHost } from './subscription';

/** A subscription whose handler takes one message at a time, each acked on its own. */
export class Consumer<T extends object> extends Subscription {
  constructor(
    host: ConsumerHost,
    queue: string,
    private readonly cls: new () => T,
    private readonly handler: MessageHandler<T>,
    prefetch: number,
  ) {
    super(host, queue, prefetch);
  }

  protected onMessage(channel: Channel, msg: ConsumeMessage): void {
    this.track(this.process(channel, msg));
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
      this.settle(channel, msg, 'ack');
    });
  }
}
