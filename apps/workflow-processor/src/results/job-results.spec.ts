import { QUEUES, RELAY_QUEUES, RESULT_DELIVERED_TO_HEADER, RESULTS_EXCHANGE, type ResultMessage, type TaskState } from '@docflow/contracts';
import { nextResultSequence as nextSequence, type PublishOptions } from '@docflow/messaging';
import { silentLogger } from '@docflow/service-kit';
import { sleep } from '../engine/abort';
import { deferred } from '../test-support/engine-harness';
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

/** A broker whose confirms the test gives by hand, in the order messages were sent. */
function manualBroker() {
  const sent: { status: string; confirm: (ok: boolean) => void }[] = [];
  const broker = {
    publish: (_queue: unknown, _type: unknown, message: unknown) => {
      const confirmed = deferred<boolean>();
      sent.push({ status: (message as { status: string }).status, confirm: confirmed.resolve });
      return confirmed.promise.then((ok) => {
        if (!ok) throw new Error('not confirmed');
      });
    },
  };
  return { broker: broker as never, sent };
}

const flushed = () => new Promise((r) => setImmediate(r));

describe('JobResults.final (issue #16: the final confirm overlaps the progress confirm before it)', () => {
  it('sends the final message while the progress before it awaits its confirm, and resolves only once both are confirmed', async () => {
    const { broker, sent } = manualBroker();
    const results = new JobResults(broker, { job_id: 'wf_1', execution_id: 1 }, 0, silentLogger);
    results.progress({ a: { status: 'running' } as never });
    expect(sent.map((m) => m.status)).toEqual(['processing']);
    let done = false;
    const final = results.final({ status: 'completed', outputs: {}, task_states: {} }).then(() => (done = true));
    // Sent at once, after the progress (same channel, same order), without its confirm.
    expect(sent.map((m) => m.status)).toEqual(['processing', 'completed']);
    sent[1]!.confirm(true);
    await flushed();
    expect(done).toBe(false);
    sent[0]!.confirm(true);
    await final;
    expect(done).toBe(true);
  });

  it('throws when the final message is not confirmed, and not for a progress message that was not', async () => {
    const first = manualBroker();
    const failedFinal = new JobResults(first.broker, { job_id: 'wf_2' }, 0, silentLogger);
    failedFinal.progress({});
    const final = failedFinal.final({ status: 'completed', outputs: {}, task_states: {} });
    first.sent[0]!.confirm(true);
    first.sent[1]!.confirm(false);
    await expect(final).rejects.toThrow('not confirmed');

    const second = manualBroker();
    const failedProgress = new JobResults(second.broker, { job_id: 'wf_3' }, 0, silentLogger);
    failedProgress.progress({});
    const ok = failedProgress.final({ status: 'completed', outputs: {}, task_states: {} });
    second.sent[0]!.confirm(false);
    second.sent[1]!.confirm(true);
    await expect(ok).resolves.toBeUndefined();
  });
});
