import type { Channel, ConsumeMessage } from 'amqplib';
import { errorMessage, newCorrelationId, runWithContext } from '@docflow/service-kit';
import { decodeMessage } from './codec';
import { annotateOutcome, type ConsumerHost, Subscription } from './subscription';
import type { BatchHandler, BatchItem } from './types';

interface Delivery<T> extends BatchItem<T> {
  readonly raw: ConsumeMessage;
}

/**
 * A subscription whose handler takes every message the prefetch window
 * holds that has arrived, up to `maxBatch`: no timer, so under light load a
 * batch of one goes at once; deliveries that arrive together (one socket
 * read) wait only for the next macrotask. One batch runs at a time per
 * channel; when the handler resolves (its effects committed) the batch is
 * acked with the fewest frames (Subscription.ackHandled: one multiple-ack
 * unless an earlier delivery of the channel is still unsettled, such as a
 * failed message waiting for its requeue).
 *
 * Messages that fail their contract are dead-lettered before the handler
 * sees the batch. When the handler throws, its transaction took nothing
 * (the handler's contract: all of a batch or none of it), so each message
 * is handed to it again alone: the others are applied and acked, and the
 * failing one is dead-lettered (NonRetryableMessageError) or requeued after
 * the usual delay until the queue's delivery limit, as with Consumer.
 */
export class BatchConsumer<T extends object> extends Subscription {
  private buffer: ConsumeMessage[] = [];
  /** When the oldest buffered delivery arrived (performance.now()), for the linger. */
  private oldestAt = 0;
  private lingerTimer: NodeJS.Timeout | undefined;
  private scheduled = false;
  private running = false;

  constructor(
    host: ConsumerHost,
    queue: string,
    private readonly cls: new () => T,
    private readonly handler: BatchHandler<T>,
    prefetch: number,
    private readonly maxBatch: number,
    private readonly lingerMs = 0,
  ) {
    super(host, queue, prefetch);
  }

  protected override onChannelChange(): void {
    // What the old channel delivered and nobody settled is requeued by RabbitMQ with the channel.
    this.buffer = [];
    this.clearLinger();
  }

  protected onMessage(channel: Channel, msg: ConsumeMessage): void {
    if (channel !== this.channel) return;
    if (this.buffer.length === 0) this.oldestAt = performance.now();
    this.buffer.push(msg);
    this.schedule();
  }

  /**
   * Takes the next batch after the current macrotask, so that deliveries
   * parsed from the same read join it; with a linger, not before the oldest
   * buffered delivery has waited `lingerMs`, unless a full batch is there
   * (or the subscription is stopping: what is buffered is requeued at once).
   */
  private schedule(): void {
    if (this.scheduled || this.running || this.buffer.length === 0) return;
    const wait = this.lingerMs > 0 && this.buffer.length < this.maxBatch && !this.cancelled ? this.oldestAt + this.lingerMs - performance.now() : 0;
    if (wait >= 1) {
      if (this.lingerTimer) return;
      this.lingerTimer = setTimeout(() => {
        this.lingerTimer = undefined;
        this.schedule();
      }, wait);
      return;
    }
    this.clearLinger();
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.runNext();
    });
  }

  private clearLinger(): void {
    if (this.lingerTimer) clearTimeout(this.lingerTimer);
    this.lingerTimer = undefined;
  }

  /** Stopping: buffered deliveries waiting for their linger are requeued now rather than at the timer. */
  override async stop(): Promise<void> {
    await super.stop();
    if (this.lingerTimer) {
      this.clearLinger();
      this.schedule();
    }
  }

  private runNext(): void {
    const channel = this.channel;
    if (this.running || !channel || this.buffer.length === 0) return;
    // What stays buffered arrived after oldestAt, which is kept: it waits no longer than its linger.
    const taken = this.buffer.splice(0, this.maxBatch);
    if (this.cancelled || this.host.isClosing()) {
      for (const msg of taken) this.settle(channel, msg, 'requeue');
      return;
    }
    this.running = true;
    this.track(
      this.process(channel, taken).finally(() => {
        this.running = false;
        this.schedule();
      }),
    );
  }

  /** The batch in a consumer span (tracing on), the child of its first message's publisher span. */
  private process(channel: Channel, taken: ConsumeMessage[]): Promise<void> {
    const first = this.metaOf(taken[0] as ConsumeMessage);
    const attributes = { 'messaging.batch.message_count': taken.length, 'docflow.correlation_id': first.correlationId };
    const context = taken.length === 1 ? { correlationId: first.correlationId, messageId: first.messageId } : { correlationId: newCorrelationId() };
    return this.inConsumerSpan(first.headers, attributes, () => runWithContext(context, () => this.handleBatch(channel, taken)));
  }

  private async handleBatch(channel: Channel, taken: ConsumeMessage[]): Promise<void> {
    const { logger } = this.host;
    const batch: Delivery<T>[] = [];
    for (const raw of taken) {
      const meta = this.metaOf(raw);
      const decoded = decodeMessage(this.cls, raw.content);
      if (decoded.ok) {
        batch.push({ msg: decoded.value, meta, raw });
        continue;
      }
      logger.warn('message rejected: does not match its contract', { queue: this.queue, kind: meta.kind, expected: this.cls.name, errors: decoded.errors });
      this.settle(channel, raw, 'reject');
    }
    if (batch.length === 0) return;
    try {
      await this.handler(batch.map(({ msg, meta }) => ({ msg, meta })));
    } catch (err) {
      if (batch.length === 1) {
        this.failed(channel, batch[0] as Delivery<T>, err);
        return;
      }
      logger.warn('batch failed; applying its messages one by one', { queue: this.queue, size: batch.length, error: errorMessage(err) });
      for (const item of batch) await this.applyAlone(channel, item);
      return;
    }
    annotateOutcome('ack');
    this.ackHandled(
      channel,
      batch.map((d) => d.raw),
    );
  }

  private async applyAlone(channel: Channel, item: Delivery<T>): Promise<void> {
    try {
      await this.handler([{ msg: item.msg, meta: item.meta }]);
    } catch (err) {
      this.failed(channel, item, err);
      return;
    }
    this.settle(channel, item.raw, 'ack');
  }

  /** Ends a message the handler failed on (Subscription.settleFailed) without holding up the next batch. */
  private failed(channel: Channel, item: Delivery<T>, err: unknown): void {
    this.track(this.settleFailed(item.meta, err, (outcome) => this.settle(channel, item.raw, outcome)));
  }
}
