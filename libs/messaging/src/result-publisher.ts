import { QUEUES, RELAY_QUEUES, RESULT_DELIVERED_TO_HEADER, RESULT_MESSAGE_VERSION, ResultMessage } from '@docflow/contracts';
import type { Broker } from './broker';

let lastSequence = 0;

/**
 * Result sequence numbers: strictly increasing in this process, and seeded
 * from the clock in microseconds so that a job redelivered to another (or a
 * restarted) processor still numbers its messages above the earlier ones.
 */
export function nextResultSequence(): number {
  lastSequence = Math.max(lastSequence + 1, Date.now() * 1000);
  return lastSequence;
}

/** A result as a processor writes it; resultMessage() adds the version, sequence and time. */
export type ResultBody = Omit<ResultMessage, 'version' | 'sequence' | 'emitted_at'>;

/** The message for `body`, stamped now: the current version, the next sequence, the time. */
export function resultMessage(body: ResultBody): ResultMessage {
  return { version: RESULT_MESSAGE_VERSION, ...body, sequence: nextResultSequence(), emitted_at: new Date().toISOString() };
}

export interface ResultPublisherOptions {
  /**
   * Also put each result straight on the public API's queue, so that its
   * owner does not wait for the router's relay; the results_queue copy says
   * so (RESULT_DELIVERED_TO_HEADER) and the router does not relay it again.
   */
  direct: boolean;
}

/**
 * Publishes a job's results to `results_queue` (the router records the
 * job), validated with the ResultMessage contract, each with a message id
 * of its job, status and sequence (both copies carry the same one; a repeat
 * is a no-op at both ends). The message is serialised before the first
 * await, so what it holds is the state at the call.
 */
export class ResultPublisher {
  constructor(
    private readonly broker: Pick<Broker, 'publish'>,
    private readonly options: ResultPublisherOptions,
  ) {}

  async publish(message: ResultMessage): Promise<void> {
    const messageId = `${message.job_id}:${message.status}:${message.sequence ?? 0}`;
    if (!this.options.direct) {
      await this.broker.publish(QUEUES.results, ResultMessage, message, { messageId });
      return;
    }
    await Promise.all([
      this.broker.publish(RELAY_QUEUES.publicApiResults, ResultMessage, message, { messageId }),
      this.broker.publish(QUEUES.results, ResultMessage, message, { messageId, headers: { [RESULT_DELIVERED_TO_HEADER]: RELAY_QUEUES.publicApiResults } }),
    ]);
  }
}
