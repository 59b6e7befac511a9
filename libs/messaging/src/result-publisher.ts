import { QUEUES, RELAY_QUEUES, RESULT_DELIVERED_TO_HEADER, RESULT_MESSAGE_VERSION, RESULTS_EXCHANGE, ResultMessage } from '@docflow/contracts';
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

/**
 * Declares what results travel through, now and on every reconnect: both
 * results queues and RESULTS_EXCHANGE bound to them. Every service that
 * publishes or consumes results calls it, so a publish never meets a missing
 * queue or binding whichever service starts first.
 */
export async function declareResultsTopology(broker: Pick<Broker, 'assertWorkQueue' | 'assertFanoutExchange'>): Promise<void> {
  await broker.assertWorkQueue(QUEUES.results);
  await broker.assertWorkQueue(RELAY_QUEUES.publicApiResults);
  await broker.assertFanoutExchange(RESULTS_EXCHANGE, [QUEUES.results, RELAY_QUEUES.publicApiResults]);
}

/**
 * Publishes a job's results, validated with the ResultMessage contract: the
 * one way every processor reports (docs/decisions.md, "One path for every
 * result"). Each result is published once, to RESULTS_EXCHANGE, which puts
 * it on `public_api_results_queue`, where its owner, the public API, applies
 * it, and on `results_queue`, where the router records the job. The message
 * is marked with RESULT_DELIVERED_TO_HEADER so that the router does not relay
 * it a second time. Its message id names the job, status and sequence, and a
 * repeat is a no-op at both ends. One confirm covers both queues and comes
 * before this resolves (the caller acks its job after). The message is
 * serialised before the first await, so what it holds is the state at the
 * call.
 */
export class ResultPublisher {
  constructor(private readonly broker: Pick<Broker, 'publish'>) {}

  async publish(message: ResultMessage): Promise<void> {
    const messageId = `${message.job_id}:${message.status}:${message.sequence ?? 0}`;
    await this.broker.publish(QUEUES.results, ResultMessage, message, {
      exchange: RESULTS_EXCHANGE,
      messageId,
      headers: { [RESULT_DELIVERED_TO_HEADER]: RELAY_QUEUES.publicApiResults },
    });
  }
}
