import { QUEUES, RELAY_QUEUES, RESULT_DELIVERED_TO_HEADER, RESULT_MESSAGE_VERSION, RESULTS_EXCHANGE, type ResultMessage } from '@docflow/contracts';
import { ResultPublisher, resultMessage } from './result-publisher';
import type { PublishOptions } from './types';

class FakeBroker {
  readonly published: { queue: string; msg: ResultMessage; options: PublishOptions }[] = [];
  async publish(queue: string, _cls: unknown, msg: ResultMessage, options: PublishOptions = {}): Promise<void> {
    this.published.push({ queue, msg, options });
  }
}

describe('resultMessage', () => {
  it('stamps the current version, an increasing sequence and the time', () => {
    const a = resultMessage({ job_id: 'j', status: 'processing' });
    const b = resultMessage({ job_id: 'j', status: 'completed', outputs: {} });
    expect(a.version).toBe(RESULT_MESSAGE_VERSION);
    expect(b.sequence!).toBeGreaterThan(a.sequence!);
    expect(Date.parse(b.emitted_at!)).toBeGreaterThan(Date.now() - 60_000);
  });
});

describe('ResultPublisher', () => {
  it('publishes a result once, to the results exchange, marked as delivered to the public API queue', async () => {
    const broker = new FakeBroker();
    const msg = resultMessage({ job_id: 'ocr_1', status: 'completed', outputs: {} });
    await new ResultPublisher(broker as never).publish(msg);
    const id = `ocr_1:completed:${msg.sequence}`;
    expect(broker.published).toEqual([
      { queue: QUEUES.results, msg, options: { exchange: RESULTS_EXCHANGE, messageId: id, headers: { [RESULT_DELIVERED_TO_HEADER]: RELAY_QUEUES.publicApiResults } } },
    ]);
  });
});
