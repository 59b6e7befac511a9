import { ExecutionWatch, terminalRowOf } from './execution-watch';

const columns = {
  id: 7,
  userId: 3,
  status: 'completed',
  taskStates: { start: { status: 'completed' } },
  outputs: { end: { ok: true } },
  awaitingNode: null,
  awaitingInputSchema: null,
  awaitingSince: null,
  startedAt: 1795000000123,
  completedAt: 1795000000456,
  error: null,
  errorType: null,
  failedNode: null,
};

describe('terminalRowOf', () => {
  it('reads the columns a terminal notification carries as findStatus returns them', () => {
    expect(terminalRowOf(7, JSON.stringify(columns))).toEqual({
      ...columns,
      startedAt: new Date(1795000000123),
      completedAt: new Date(1795000000456),
      correlationTokenSealed: null,
    });
  });

  it('keeps a failure’s error columns', () => {
    const failed = { ...columns, status: 'failed', outputs: null, error: 'boom', errorType: 'node_error', failedNode: 'route' };
    expect(terminalRowOf(7, JSON.stringify(failed))).toMatchObject({ status: 'failed', outputs: null, error: 'boom', errorType: 'node_error', failedNode: 'route' });
  });

  it('refuses what is not a terminal execution of that id, so the waiter reads instead', () => {
    expect(terminalRowOf(8, JSON.stringify(columns))).toBeUndefined();
    expect(terminalRowOf(7, JSON.stringify({ ...columns, status: 'running' }))).toBeUndefined();
    expect(terminalRowOf(7, JSON.stringify({ ...columns, status: 'awaiting_user_input' }))).toBeUndefined();
    expect(terminalRowOf(7, JSON.stringify({ ...columns, userId: '3' }))).toBeUndefined();
    expect(terminalRowOf(7, '{not json')).toBeUndefined();
    expect(terminalRowOf(7, 'null')).toBeUndefined();
  });
});

describe('ExecutionWatch', () => {
  it('wakes the waiters of an id with its terminal columns, or with nothing for a bare id', async () => {
    const watch = new ExecutionWatch();
    watch.setLive(true);
    const terminal = watch.changed(7, 60_000);
    const other = watch.changed(8, 60_000);
    watch.onNotification(`7 ${JSON.stringify(columns)}`);
    await expect(terminal).resolves.toMatchObject({ id: 7, status: 'completed', completedAt: new Date(1795000000456) });
    watch.onNotification('8');
    await expect(other).resolves.toBeUndefined();
    expect(watch.size).toBe(0);
  });

  it('wakes with nothing when the carried columns cannot be read, when the wait aborts, and when the listener is lost', async () => {
    const watch = new ExecutionWatch();
    watch.setLive(true);
    const garbled = watch.changed(7, 60_000);
    watch.onNotification('7 {"id":7');
    await expect(garbled).resolves.toBeUndefined();
    const stop = new AbortController();
    const aborted = watch.changed(7, 60_000, stop.signal);
    stop.abort();
    await expect(aborted).resolves.toBeUndefined();
    const lost = watch.changed(7, 60_000);
    watch.setLive(false);
    await expect(lost).resolves.toBeUndefined();
    expect(watch.size).toBe(0);
  });

  it('wakes this process’s waiters of a terminal change it committed, and leaves other changes to the NOTIFY', async () => {
    const watch = new ExecutionWatch();
    watch.setLive(true);
    const terminal = watch.changed(7, 60_000);
    const started = watch.changed(8, 60_000);
    watch.onCommittedHere(['8', `7 ${JSON.stringify(columns)}`]);
    await expect(terminal).resolves.toMatchObject({ id: 7, status: 'completed' });
    expect(watch.size).toBe(1);
    // The NOTIFY of the same terminal change, arriving later, finds no one; the start's wakes its waiter.
    watch.onNotification(`7 ${JSON.stringify(columns)}`);
    watch.onNotification('8');
    await expect(started).resolves.toBeUndefined();
    expect(watch.size).toBe(0);
  });
});
