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

describe('ExecutionWatch.startedHere: what an owner’s long poll may take instead of a read (issue #16)', () => {
  const terminal = `7 ${JSON.stringify(columns)}`;
  const started = (watch: ExecutionWatch, id = 7, userId = 3) => {
    const ticket = watch.expectStart(id);
    watch.confirmStart(id, ticket, userId);
    return ticket;
  };

  it('is quiet for an execution started here while nothing but its own announcement was heard, and terminal once its end was', () => {
    const watch = new ExecutionWatch();
    watch.setLive(true);
    started(watch);
    expect(watch.startedHere(7, 3)).toEqual({ quiet: true });
    watch.onNotification('7'); // the start's own announcement
    expect(watch.startedHere(7, 3)).toEqual({ quiet: true });
    watch.onNotification(terminal);
    expect(watch.startedHere(7, 3)).toEqual({ terminal: expect.objectContaining({ id: 7, userId: 3, status: 'completed' }) });
  });

  it('remembers a terminal change this process committed as soon as its commit was answered, with no waiter yet; bare ones are left to the NOTIFY', () => {
    const watch = new ExecutionWatch();
    watch.setLive(true);
    started(watch);
    watch.onCommittedHere(['7']);
    expect(watch.startedHere(7, 3)).toEqual({ quiet: true });
    watch.onCommittedHere([terminal]);
    expect(watch.startedHere(7, 3)).toEqual({ terminal: expect.objectContaining({ status: 'completed' }) });
    watch.onNotification(terminal); // the same change through LISTEN
    expect(watch.startedHere(7, 3)).toEqual({ terminal: expect.objectContaining({ status: 'completed' }) });
  });

  it('says nothing (the poll reads) after a second bare notification: it may be a pause or anything else', () => {
    const watch = new ExecutionWatch();
    watch.setLive(true);
    started(watch);
    watch.onNotification('7');
    watch.onNotification('7');
    expect(watch.startedHere(7, 3)).toBeUndefined();
  });

  it('counts what is heard while the start statement is out, before its commit is known', () => {
    const watch = new ExecutionWatch();
    watch.setLive(true);
    const ticket = watch.expectStart(7);
    watch.onNotification(terminal); // e.g. a cancel right after the start's commit, heard before the start's answer
    watch.confirmStart(7, ticket, 3);
    expect(watch.startedHere(7, 3)).toEqual({ terminal: expect.objectContaining({ status: 'completed' }) });
  });

  it('says nothing for another caller, an execution not started here, a start that did not happen or was put back', () => {
    const watch = new ExecutionWatch();
    watch.setLive(true);
    started(watch);
    expect(watch.startedHere(7, 4)).toBeUndefined();
    expect(watch.startedHere(8, 3)).toBeUndefined();
    const refused = watch.expectStart(9);
    watch.forgetStart(9, refused);
    watch.confirmStart(9, refused, 3);
    expect(watch.startedHere(9, 3)).toBeUndefined();
    watch.forgetStart(7);
    expect(watch.startedHere(7, 3)).toBeUndefined();
  });

  it('trusts only a start whose ticket is the latest for its id', () => {
    const watch = new ExecutionWatch();
    watch.setLive(true);
    const first = watch.expectStart(7);
    const second = watch.expectStart(7);
    watch.confirmStart(7, first, 3); // the first's commit answered, but the second replaced its ticket
    expect(watch.startedHere(7, 3)).toBeUndefined();
    watch.forgetStart(7, first); // not the current ticket: nothing happens
    watch.confirmStart(7, second, 3);
    expect(watch.startedHere(7, 3)).toEqual({ quiet: true });
  });

  it('says nothing without a listener, or once the listener broke after the start, even if it is back', () => {
    const watch = new ExecutionWatch();
    expect(watch.expectStart(7)).toBeUndefined(); // not live
    watch.setLive(true);
    started(watch);
    watch.setLive(false);
    watch.setLive(true);
    expect(watch.startedHere(7, 3)).toBeUndefined();
  });

  it('does not take a terminal payload it cannot read, nor one of another owner', () => {
    const watch = new ExecutionWatch();
    watch.setLive(true);
    started(watch);
    watch.onNotification('7 {garbled');
    expect(watch.startedHere(7, 3)).toBeUndefined();
    started(watch, 7, 4);
    watch.onNotification(terminal); // userId 3 in the columns
    expect(watch.startedHere(7, 4)).toBeUndefined();
  });

  it('forgets the oldest starts past its bound and those older than five minutes', () => {
    jest.useFakeTimers({ now: 1_000_000 });
    try {
      const watch = new ExecutionWatch();
      watch.setLive(true);
      for (let id = 1; id <= 5001; id += 1) started(watch, id);
      expect(watch.startedHere(1, 3)).toBeUndefined();
      expect(watch.startedHere(2, 3)).toEqual({ quiet: true });
      jest.setSystemTime(1_000_000 + 5 * 60_000 + 1);
      expect(watch.startedHere(2, 3)).toBeUndefined();
    } finally {
      jest.useRealTimers();
    }
  });
});
