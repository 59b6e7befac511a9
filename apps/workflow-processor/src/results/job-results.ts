import type { TaskState } from '@docflow/contracts';
import { ResultPublisher, resultMessage, type Broker, type ResultBody } from '@docflow/messaging';
import { errorMessage, type Logger } from '@docflow/service-kit';

export type FinalResult = Omit<ResultBody, 'job_id' | 'execution_id'>;

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
  private readonly publisher: ResultPublisher;

  constructor(
    broker: Pick<Broker, 'publish'>,
    private readonly base: { job_id: string; execution_id?: number },
    private readonly intervalMs: number,
    private readonly logger: Logger,
  ) {
    // Straight to the public API's queue as well, as every processor does: the execution record does not wait for the router.
    this.publisher = new ResultPublisher(broker);
  }

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

  /**
   * Publishes the final message after any progress already sent, and
   * resolves once all of them are confirmed; throws when the broker does not
   * confirm the final one. The final message does not wait for the progress
   * confirms before it goes (issue #16): both are on the one publish channel,
   * which keeps their order, and the results consumers never let a
   * `processing` undo a later status anyway (monotonic ranks). The job is
   * acked only after this resolves, so after every confirm, as before.
   */
  async final(result: FinalResult): Promise<void> {
    this.close();
    const sent = this.send(result);
    await Promise.all([this.inflight, sent]);
  }

  /** Sends the latest progress now (a run that parked) and stops; resolves once what was sent is confirmed. */
  async drain(): Promise<void> {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
      this.flush();
    }
    this.close();
    await this.inflight;
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
    const sent = this.send({ status: 'processing', task_states: this.latest as Record<string, TaskState> }).catch((err: unknown) =>
      this.logger.warn('progress result not published', { error: errorMessage(err) }),
    );
    this.inflight = Promise.all([this.inflight, sent]);
  }

  private send(result: FinalResult): Promise<void> {
    return this.publisher.publish(resultMessage({ job_id: this.base.job_id, ...(this.base.execution_id !== undefined ? { execution_id: this.base.execution_id } : {}), ...result }));
  }
}
