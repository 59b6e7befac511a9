import type { ConfirmChannel, Message, Options } from 'amqplib';
import { errorMessage } from '@docflow/service-kit';
import { BrokerUnavailableError } from './errors';

/**
 * Counts messages the broker returned as unroutable (published with
 * `mandatory` to a queue that does not exist). RabbitMQ sends basic.return
 * before the confirm of the same message, so the confirm callback can tell.
 */
export class ReturnTracker {
  private readonly returned = new Map<string, number>();

  private static key(queue: string, messageId: unknown): string {
    return `${queue}\u0000${typeof messageId === 'string' ? messageId : ''}`;
  }

  /** Listener for the channel's `return` event. */
  readonly onReturn = (m: Message): void => {
    const key = ReturnTracker.key(m.fields.routingKey, m.properties.messageId);
    this.returned.set(key, (this.returned.get(key) ?? 0) + 1);
  };

  /** True (once per return) when this publish came back unroutable. */
  take(queue: string, messageId: string): boolean {
    const key = ReturnTracker.key(queue, messageId);
    const n = this.returned.get(key) ?? 0;
    if (n === 0) return false;
    if (n === 1) this.returned.delete(key);
    else this.returned.set(key, n - 1);
    return true;
  }

  clear(): void {
    this.returned.clear();
  }
}

/**
 * Publishes to a queue through the default exchange (or to `exchange` with
 * `queue` as routing key) and resolves on the broker's confirm;
 * BrokerUnavailableError otherwise.
 */
export function sendConfirmed(
  ch: ConfirmChannel,
  queue: string,
  content: Buffer,
  options: Options.Publish & { messageId: string },
  returns: ReturnTracker,
  timeoutMs: number,
  exchange = '',
): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    let settled = false;
    const finish = (err?: Error) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (err) reject(err);
      else resolve();
    };
    const timer = setTimeout(() => finish(new BrokerUnavailableError('Message broker did not confirm the message in time', { queue })), timeoutMs);
    try {
      ch.publish(exchange, queue, content, { ...options, persistent: true, mandatory: true }, (err: unknown) => {
        if (returns.take(queue, options.messageId)) finish(new BrokerUnavailableError(exchange ? `Exchange ${exchange} routes ${queue} to no queue` : `Queue ${queue} does not exist`, { queue }));
        else if (err) finish(new BrokerUnavailableError('Message broker did not accept the message', { queue }));
        else finish();
      });
    } catch (err) {
      finish(new BrokerUnavailableError(`Message broker is not connected: ${errorMessage(err)}`, { queue }));
    }
  });
}
