import type { ConsumeMessage } from 'amqplib';

/** An amqplib channel for consumer unit tests: records what the consumer settles (and a close); `deliver` hands it messages as amqplib would. */
export class FakeChannel {
  readonly settled: string[] = [];
  private onMessage: ((msg: ConsumeMessage | null) => void) | undefined;
  private tag = 0;
  on(): this {
    return this;
  }
  async prefetch(): Promise<void> {}
  async consume(_q: string, cb: (msg: ConsumeMessage | null) => void): Promise<{ consumerTag: string }> {
    this.onMessage = cb;
    return { consumerTag: 'ctag' };
  }
  async cancel(): Promise<void> {}
  async close(): Promise<void> {
    this.settled.push('close');
  }
  ack(msg: ConsumeMessage, multiple = false): void {
    this.settled.push(`ack ${msg.fields.deliveryTag}${multiple ? ' multiple' : ''}`);
  }
  nack(msg: ConsumeMessage, _all: boolean, requeue: boolean): void {
    this.settled.push(`${requeue ? 'requeue' : 'reject'} ${msg.fields.deliveryTag}`);
  }
  /** A message with this body (a string is sent as is, anything else as JSON), tagged in order from 1. */
  deliver(body: unknown): void {
    this.tag += 1;
    const content = Buffer.from(typeof body === 'string' ? body : JSON.stringify(body));
    this.onMessage?.({ content, fields: { deliveryTag: this.tag, redelivered: false }, properties: { headers: {}, messageId: `m${this.tag}` } } as unknown as ConsumeMessage);
  }
}
