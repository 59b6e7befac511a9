import type { Channel, ConsumeMessage } from 'amqplib';
import { errorMessage, runWithContext } from '@docflow/service-kit';
import { endSpan, withIncomingSpan } from '@docflow/telemetry';
import { decodeMessage } from './codec';
import { NonRetryableMessageError } from './errors';
import { requeueDelay } from './topology';
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
}
