import type { Channel, ConsumeMessage } from 'amqplib';
import { Subscription } from './subscription';
import { FakeChannel } from './test-support/fake-channel';
import { fakeHost } from './test-support/fake-host';

/** A subscription that keeps its deliveries and lets the test ack or requeue them by delivery tag. */
class Probe extends Subscription {
  private readonly delivered = new Map<Channel, ConsumeMessage[]>();
  constructor() {
    super(fakeHost(), 'q', 16);
  }
  protected onMessage(channel: Channel, msg: ConsumeMessage): void {
    this.delivered.set(channel, [...(this.delivered.get(channel) ?? []), msg]);
  }
  private msgs(channel: FakeChannel, tags: number[]): ConsumeMessage[] {
    const all = this.delivered.get(channel as unknown as Channel) ?? [];
    return tags.map((t) => all.find((m) => m.fields.deliveryTag === t) as ConsumeMessage);
  }
  ack(channel: FakeChannel, ...tags: number[]): void {
    this.ackHandled(channel as unknown as Channel, this.msgs(channel, tags));
  }
  requeue(channel: FakeChannel, tag: number): void {
    this.settle(channel as unknown as Channel, this.msgs(channel, [tag])[0] as ConsumeMessage, 'requeue');
  }
}

async function setUp(deliveries: number) {
  const probe = new Probe();
  const channel = new FakeChannel();
  await probe.attach(1, channel as unknown as Channel);
  for (let i = 0; i < deliveries; i++) channel.deliver({ i });
  return { probe, channel };
}

describe('Subscription.ackHandled', () => {
  it('acks handled deliveries that are all the unsettled ones up to the highest with one multiple-ack', async () => {
    const { probe, channel } = await setUp(4);
    probe.ack(channel, 3, 1, 4, 2);
    expect(channel.settled).toEqual(['ack 4 multiple']);
  });

  it('stops the multiple-ack below an unsettled delivery that is not handled and acks those above it one by one', async () => {
    const { probe, channel } = await setUp(6);
    probe.ack(channel, 5, 1, 2, 4);
    expect(channel.settled).toEqual(['ack 2 multiple', 'ack 4', 'ack 5']);
  });

  it('is not held back by a delivery settled otherwise (a requeue) between the handled ones', async () => {
    const { probe, channel } = await setUp(5);
    probe.requeue(channel, 2);
    probe.ack(channel, 1, 3, 4);
    expect(channel.settled).toEqual(['requeue 2', 'ack 4 multiple']);
  });

  it('sends nothing for a channel no longer current, and forgets that channel’s unsettled tags', async () => {
    const { probe, channel } = await setUp(3);
    const next = new FakeChannel();
    await probe.attach(2, next as unknown as Channel);
    for (let i = 0; i < 3; i++) next.deliver({ i });
    // The same tag numbers are unsettled on the new channel: neither channel hears of the old channel's acks.
    probe.ack(channel, 1, 2, 3);
    expect(channel.settled).toEqual([]);
    expect(next.settled).toEqual([]);
    // A requeue on the old channel goes to it (as any nack) and leaves tag 1 of the new channel unsettled.
    probe.requeue(channel, 1);
    probe.ack(next, 2, 3);
    expect(channel.settled).toEqual(['requeue 1']);
    expect(next.settled).toEqual(['ack 2', 'ack 3']);
    // Back on the first channel object (its tags go on from 4): tag 1, left unsettled on the previous channel, no longer holds the ack back.
    await probe.attach(3, channel as unknown as Channel);
    channel.deliver({ i: 4 });
    channel.deliver({ i: 5 });
    probe.ack(channel, 4, 5);
    expect(channel.settled).toEqual(['requeue 1', 'ack 5 multiple']);
  });

  it('takes every tag a multiple-ack covers out of the unsettled set', async () => {
    const { probe, channel } = await setUp(5);
    probe.ack(channel, 2, 1, 3);
    // Were 1 and 2 still counted unsettled, 4 and 5 could not go as one multiple-ack.
    probe.ack(channel, 4, 5);
    // Acked already: not acked twice (a second ack of a tag is a channel error).
    probe.ack(channel, 2);
    expect(channel.settled).toEqual(['ack 3 multiple', 'ack 5 multiple']);
  });
});
