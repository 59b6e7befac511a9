import client from 'prom-client';
import { Metrics } from './metrics';

describe('Metrics.gauge aggregator', () => {
  /** What a cluster primary reports for one gauge set to `values` in its workers. */
  async function clusterValue(aggregator: 'max' | undefined, values: number[]): Promise<number> {
    const workers = await Promise.all(
      values.map(async (v) => {
        const m = new Metrics('router');
        m.gauge('depth', 'a depth every worker reads from one queue', ['queue'], aggregator).set({ queue: 'q' }, v);
        return m.registry.getMetricsAsJSON();
      }),
    );
    const merged = client.AggregatorRegistry.aggregate(workers);
    const metric = await merged.getSingleMetric('depth')!.get();
    return metric.values[0]!.value;
  }

  it('sums across workers by default, and takes the maximum when asked (a shared queue depth is not doubled)', async () => {
    expect(await clusterValue(undefined, [2, 2])).toBe(4);
    expect(await clusterValue('max', [2, 2])).toBe(2);
  });
});
