import { QUEUES, RELAY_QUEUES, RESULT_DELIVERED_TO_HEADER, RESULTS_EXCHANGE, type ResultMessage, type TaskState } from '@docflow/contracts';
import { nextResultSequence as nextSequence, type PublishOptions } from '@docflow/messaging';
import { silentLogger } from '@docflow/service-kit';
import { sleep } from '../engine/abort';
import { JobResults } from './job-results';

class FakeBroker {
  readonly published: { queue: string; msg: ResultMessage; options: PublishOptions }[] = [];
  async publish(queue: string, _cls: unknown, msg: ResultMessage, options: PublishOptions = {}): Promise<void> {
    this.published.push({ queue, msg: JSON.parse(JSON.stringify(msg)) as ResultMessage, options });
  }
  /** What reached results_queue, in order. */
  get sent(): ResultMessage[] {
    return this.published.filter((p) => p.queue === QUEUES.results).map((p) => p.msg);
  }
}

const states = (s: TaskState['status']): Record<string, TaskState> => ({ a: { status: s } });

describe('JobResults', () => {
  it('numbers results with increasing sequences seeded from the clock', () => {
    const a = nextSequence();
    const b = nextSequence();
    expect(b).toBeGreaterThan(a);
    expect(a).toBeGreaterThanOrEqual((Date.now() - 1000) * 1000);
  });

  it('sends at most one progress message per interval, the latest state at its end, and nothing after the final one', async () => {
    const broker = new FakeBroker();
    const results = new JobResults(broker as never, { job_id: 'wf_9', execution_id: 9 }, 40, silentLogger);
    results.progress(states('running'));
    results.progress(states('completed'));
    results.progress(states('failed'));
    expect(broker.sent.map((m) => m.status)).toEqual(['processing']);
    await sleep(80, new AbortController().signal);
    expect(broker.sent).toHaveLength(2);
    expect(broker.sent[1]?.task_states).toEqual(states('failed'));

    results.progress(states('running'));
    await results.final({ status: 'completed', outputs: {}, task_states: states('completed') });
    results.progress(states('running'));
    await sleep(80, new AbortController().signal);
    const statuses = broker.sent.map((m) => m.status);
    expect(statuses[statuses.length - 1]).toBe('completed');
    expect(broker.sent.every((m) => m.job_id === 'wf_9' && m.execution_id === 9 && typeof m.emitted_at === 'string')).toBe(true);
    const seq = broker.sent.map((m) => m.sequence as number);
    expect([...seq].sort((x, y) => x - y)).toEqual(seq);
    expect(new Set(seq).size).toBe(seq.length);
  });

  it('publishes every result once, to the results exchange, with a message id and marked as delivered to the public API queue', async () => {
    const broker = new FakeBroker();
    const results = new JobResults(broker as never, { job_id: 'wf_10', execution_id: 10 }, 1000, silentLogger);
    await results.final({ status: 'completed', outputs: {}, task_states: states('completed') });
    expect(broker.published).toHaveLength(1);
    const [only] = broker.published;
    expect(only!.queue).toBe(QUEUES.results);
    expect(only!.options).toEqual({ exchange: RESULTS_EXCHANGE, messageId: expect.any(String), headers: { [RESULT_DELIVERED_TO_HEADER]: RELAY_QUEUES.publicApiResults } });
  });
});
