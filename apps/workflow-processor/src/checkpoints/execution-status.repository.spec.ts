import { ExecutionStatusRepository } from './execution-status.repository';

type DataSource = ConstructorParameters<typeof ExecutionStatusRepository>[0];

interface Call {
  name: string;
  values: unknown[];
  answer(rows: Record<string, unknown>[]): void;
  fail(err: unknown): void;
}

/** A DataSource whose pool records each statement and answers it when the test says. */
function fakeDs(): { ds: DataSource; calls: Call[] } {
  const calls: Call[] = [];
  const master = {
    query: (config: { name: string; values: unknown[] }) =>
      new Promise((resolve, reject) => calls.push({ name: config.name, values: config.values, answer: (rows) => resolve({ rows }), fail: reject })),
  };
  return { ds: { driver: { master } } as unknown as DataSource, calls };
}

const tick = () => new Promise((r) => setImmediate(r));

describe('ExecutionStatusRepository: grouped cancel reads (issue #16)', () => {
  it('sends a lone read at once, alone, with the one-execution statement', async () => {
    const { ds, calls } = fakeDs();
    const read = new ExecutionStatusRepository(ds).isCancelled(7);
    expect(calls.map((c) => [c.name, c.values])).toEqual([['wfp_execution_status', [7]]]);
    calls[0]!.answer([{ status: 'cancelled' }]);
    await expect(read).resolves.toBe(true);
  });

  it('groups the reads asked for while one is in flight into one statement sent when it answers', async () => {
    const { ds, calls } = fakeDs();
    const repo = new ExecutionStatusRepository(ds);
    const first = repo.isCancelled(1);
    const queued = [repo.isCancelled(2), repo.isCancelled(3), repo.isCancelled(2), repo.isCancelled(4)];
    await tick();
    expect(calls).toHaveLength(1); // nothing more goes while the first is out
    calls[0]!.answer([{ status: 'running' }]);
    await expect(first).resolves.toBe(false);
    await tick();
    expect(calls.map((c) => [c.name, c.values])).toEqual([
      ['wfp_execution_status', [1]],
      ['wfp_execution_statuses', [[2, 3, 4]]],
    ]);
    // 3 cancelled, 2 running, 4 not found (a missing row cancels nothing, as before); bigint ids come back as text.
    calls[1]!.answer([
      { id: '3', status: 'cancelled' },
      { id: 2, status: 'running' },
    ]);
    await expect(Promise.all(queued)).resolves.toEqual([false, true, false, false]);
  });

  it('reads alone each execution of a group whose statement failed, so one bad id fails only its own read', async () => {
    const { ds, calls } = fakeDs();
    const repo = new ExecutionStatusRepository(ds);
    const first = repo.isCancelled(1);
    const a = repo.isCancelled(5);
    const b = repo.isCancelled(2 ** 40);
    calls[0]!.answer([]);
    await first;
    await tick();
    calls[1]!.fail(Object.assign(new Error('out of range for type integer'), { code: '22003' }));
    await tick();
    expect(calls.slice(2).map((c) => [c.name, c.values])).toEqual([
      ['wfp_execution_status', [5]],
      ['wfp_execution_status', [2 ** 40]],
    ]);
    calls[2]!.answer([{ status: 'cancelled' }]);
    calls[3]!.fail(Object.assign(new Error('out of range for type integer'), { code: '22003' }));
    await expect(a).resolves.toBe(true);
    await expect(b).rejects.toThrow('out of range');
  });

  it('cancels nothing in a database without the public API tables, alone or grouped', async () => {
    const { ds, calls } = fakeDs();
    const repo = new ExecutionStatusRepository(ds);
    const undefinedTable = Object.assign(new Error('relation "workflow_executions" does not exist'), { code: '42P01' });
    const first = repo.isCancelled(1);
    const rest = [repo.isCancelled(2), repo.isCancelled(3)];
    calls[0]!.fail(undefinedTable);
    await expect(first).resolves.toBe(false);
    await tick();
    calls[1]!.fail(undefinedTable);
    await expect(Promise.all(rest)).resolves.toEqual([false, false]);
  });

  it('fails every read of a group when the database is away, each with its own error', async () => {
    const { ds, calls } = fakeDs();
    const repo = new ExecutionStatusRepository(ds);
    const first = repo.isCancelled(1);
    const rest = [repo.isCancelled(2), repo.isCancelled(3)];
    calls[0]!.fail(new Error('database away'));
    await expect(first).rejects.toThrow('database away');
    await tick();
    calls[1]!.fail(new Error('database away'));
    await tick();
    for (const c of calls.slice(2)) c.fail(new Error('database away'));
    for (const r of rest) await expect(r).rejects.toThrow('database away');
  });
});
