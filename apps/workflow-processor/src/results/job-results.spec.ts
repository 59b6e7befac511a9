import type { ResultMessage, TaskState } from '@docflow/contracts';
import { silentLogger } from '@docflow/service-kit';
import { sleep } from '../engine/abort';
import { JobResults, nextSequence } from './job-results';

class FakeBroker {
  readonly sent: ResultMessage[] = [];
  async publish(_queue: string, _cls: unknown, msg: ResultMessage): Promise<void> {
    this.sent.push(JSON.parse(JSON.stringify(msg)) as ResultMessage);
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
});
