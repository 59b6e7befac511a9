import { QUEUES, RELAY_QUEUES, RESULT_DELIVERED_TO_HEADER, ResultMessage, type TaskState } from '@docflow/contracts';
import { randomUUID } from 'node:crypto';
import type { Broker } from '@docflow/messaging';
import { errorMessage, type Logger } from '@docflow/service-kit';

let lastSequence = 0;

/**
 * Result sequence numbers: strictly increasing in this process, and seeded
 * from the clock in microseconds so that a job redelivered to another (or a
 * restarted) processor still numbers its messages above the earlier ones.
 */
export function nextSequence(): number {
  lastSequence = Math.max(lastSequence + 1, Date.now() * 1000);
  return lastSequence;
}

export type FinalResult = Omit<ResultMessage, 'job_id' | 'execution_id' | 'sequence' | 'emitted_at'>;

/**
 * The results of one job on `results_queue`: throttled `processing`
 * progress (at most one per interval; the last change in an interval is sent
 * at its end), then one final message, after which nothing more is sent.
 */
export class JobResults {
  private latest: Readonly<Record<string, TaskState>> | undefined;
  private lastAt = Number.NEGATIVE_INFINITY;
  private timer: NodeJS.Timeout | undefined;
  private inflight: Promise<unknown> = Promise.resolve();
  private closed = false;

  constructor(
    private readonly broker: Pick<Broker, 'publish'>,
    private readonly base: { job_id: string; execution_id?: number },
    private readonly intervalMs: number,
    private readonly logger: Logger,
  ) {}

  /** Notes the live task states; a `processing` message follows now or at the end of the interval. */
  progress(taskStates: Readonly<Record<string, TaskState>>): void {
    if (this.closed) return;
    this.latest = taskStates;
    if (this.timer) return;
    const wait = this.lastAt + this.intervalMs - Date.now();
    if (wait <= 0) {
      this.flush();
      return;
    }
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.flush();
    }, wait);
  }

  /** Publishes the final message (after any progress already sent); throws when the broker does not confirm it. */
  async final(result: FinalResult): Promise<void> {
    this.close();
    await this.inflight;
    await this.send(this.message(result));
  }

  /** Stops progress reports without a final message (shutdown). */
  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private flush(): void {
    if (this.closed || !this.latest) return;
    this.lastAt = Date.now();
    // publish() serialises the message before its first await: the snapshot is taken now.
    const sent = this.send(this.message({ status: 'processing', task_states: this.latest as Record<string, TaskState> })).catch((err: unknown) => this.logger.warn('progress result not published', { error: errorMessage(err) }));
    this.inflight = Promise.all([this.inflight, sent]);
  }

  /**
   * Publishes one result to results_queue (the router records the job) and,
   * at the same time, to the public API's queue, so that the execution
   * record does not wait for the router's relay; the results_queue copy says
   * so (RESULT_DELIVERED_TO_HEADER) and the router does not relay it again.
   * Both copies carry one message id; a repeat is a no-op at both ends.
   * Serialised before the first await, like publish().
   */
  private async send(message: ResultMessage): Promise<void> {
    const messageId = randomUUID();
    await Promise.all([
      this.broker.publish(RELAY_QUEUES.publicApiResults, ResultMessage, message, { messageId }),
      this.broker.publish(QUEUES.results, ResultMessage, message, { messageId, headers: { [RESULT_DELIVERED_TO_HEADER]: RELAY_QUEUES.publicApiResults } }),
    ]);
  }

  private message(result: FinalResult): ResultMessage {
    return {
      job_id: this.base.job_id,
      ...(this.base.execution_id !== undefined ? { execution_id: this.base.execution_id } : {}),
      ...result,
      sequence: nextSequence(),
      emitted_at: new Date().toISOString(),
    };
  }
}
