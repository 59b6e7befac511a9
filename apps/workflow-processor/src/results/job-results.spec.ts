import { silentLogger } from '@docflow/service-kit';
import { deferred } from '../test-support/engine-harness';
import { JobResults } from './job-results';

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
