import { GroupCommit, ItemOutcome } from './group-commit';

/** A promise a test settles by hand. */
function deferred<T>() {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** Lets every queued microtask (and the promise chains they start) run. */
const settle = () => new Promise<void>((r) => setImmediate(r));

/** A flush that records each batch and waits until the test lets it finish. */
function controlledFlush() {
  const batches: string[][] = [];
  const gates: ReturnType<typeof deferred<void>>[] = [];
  const flush = async (items: string[]): Promise<ItemOutcome<string>[]> => {
    batches.push(items);
    const gate = deferred<void>();
    gates.push(gate);
    await gate.promise;
    return items.map((i) => (i.startsWith('bad') ? { ok: false, error: new Error(`refused ${i}`) } : { ok: true, value: `done ${i}` }));
  };
  return { flush, batches, gates };
}

describe('GroupCommit', () => {
  it('flushes a lone item at once, without waiting for company', async () => {
    const { flush, batches, gates } = controlledFlush();
    const wait = jest.fn(() => Promise.resolve());
    const gc = new GroupCommit(flush, { maxItems: 8, lingerMs: 2, wait });
    const a = gc.submit('a');
    expect(batches).toEqual([['a']]);
    gates[0]!.resolve();
    await expect(a).resolves.toBe('done a');
    expect(wait).not.toHaveBeenCalled();
  });

  it('collects what arrives while a flush is in flight into the next flush, and answers each item its own outcome', async () => {
    const { flush, batches, gates } = controlledFlush();
    const gc = new GroupCommit(flush, { maxItems: 8, lingerMs: 0 });
    const a = gc.submit('a');
    const b = gc.submit('b');
    const bad = gc.submit('bad1');
    const c = gc.submit('c');
    expect(batches).toEqual([['a']]);
    expect(gc.queued).toBe(3);
    gates[0]!.resolve();
    await expect(a).resolves.toBe('done a');
    await settle();
    expect(batches).toEqual([['a'], ['b', 'bad1', 'c']]);
    gates[1]!.resolve();
    await expect(b).resolves.toBe('done b');
    await expect(bad).rejects.toThrow('refused bad1');
    await expect(c).resolves.toBe('done c');
    expect(gc.queued).toBe(0);
  });

  it('with gatherTurn, an idle committer flushes at the end of the turn, with every item submitted in that turn', async () => {
    const { flush, batches, gates } = controlledFlush();
    const gc = new GroupCommit(flush, { maxItems: 8, lingerMs: 0, gatherTurn: true });
    const a = gc.submit('a');
    const b = gc.submit('b');
    expect(batches).toEqual([]);
    await settle();
    expect(batches).toEqual([['a', 'b']]);
    const c = gc.submit('c');
    gates[0]!.resolve();
    await expect(a).resolves.toBe('done a');
    await expect(b).resolves.toBe('done b');
    await settle();
    expect(batches).toEqual([['a', 'b'], ['c']]);
    gates[1]!.resolve();
    await expect(c).resolves.toBe('done c');
  });

  it('takes at most maxItems per flush', async () => {
    const { flush, batches, gates } = controlledFlush();
    const gc = new GroupCommit(flush, { maxItems: 2, lingerMs: 0 });
    const all = ['a', 'b', 'c', 'd', 'e'].map((i) => gc.submit(i));
    gates[0]!.resolve();
    await settle();
    gates[1]!.resolve();
    await settle();
    gates[2]!.resolve();
    await expect(Promise.all(all)).resolves.toEqual(['done a', 'done b', 'done c', 'done d', 'done e']);
    expect(batches).toEqual([['a'], ['b', 'c'], ['d', 'e']]);
  });

  it('lingers before a flush only when a queue formed and is not full, and takes what arrived meanwhile', async () => {
    const { flush, batches, gates } = controlledFlush();
    const lingers: ReturnType<typeof deferred<void>>[] = [];
    const wait = jest.fn((ms: number) => {
      expect(ms).toBe(2);
      const d = deferred<void>();
      lingers.push(d);
      return d.promise;
    });
    const gc = new GroupCommit(flush, { maxItems: 3, lingerMs: 2, wait });
    const a = gc.submit('a');
    const b = gc.submit('b');
    gates[0]!.resolve();
    await a;
    await settle();
    // b queued behind a: the next flush waits for company first.
    expect(wait).toHaveBeenCalledTimes(1);
    expect(batches).toHaveLength(1);
    const c = gc.submit('c');
    lingers[0]!.resolve();
    await settle();
    expect(batches[1]).toEqual(['b', 'c']);
    // A queue that is full already goes without lingering.
    const d = gc.submit('d');
    const e = gc.submit('e');
    const f = gc.submit('f');
    gates[1]!.resolve();
    await Promise.all([b, c]);
    await settle();
    expect(wait).toHaveBeenCalledTimes(1);
    expect(batches[2]).toEqual(['d', 'e', 'f']);
    gates[2]!.resolve();
    await expect(Promise.all([d, e, f])).resolves.toEqual(['done d', 'done e', 'done f']);
  });

  it('gives every item of a flush that throws the error, and goes on with the next batch', async () => {
    let calls = 0;
    const gate = deferred<void>();
    const gc = new GroupCommit<string, string>(
      async (items) => {
        calls += 1;
        if (calls === 1) {
          await gate.promise;
          throw new Error('database down');
        }
        return items.map((i) => ({ ok: true, value: i.toUpperCase() }));
      },
      { maxItems: 8, lingerMs: 0 },
    );
    const a = gc.submit('a');
    const b = gc.submit('b');
    gate.resolve();
    await expect(a).rejects.toThrow('database down');
    await expect(b).resolves.toBe('B');
    const c = gc.submit('c');
    await expect(c).resolves.toBe('C');
    expect(calls).toBe(3);
  });

  it('refuses a flush that answers the wrong number of outcomes, and bad options', async () => {
    const gc = new GroupCommit<string, string>(async () => [], { maxItems: 4, lingerMs: 0 });
    await expect(gc.submit('a')).rejects.toThrow('flush answered 0 outcomes for 1 items');
    expect(() => new GroupCommit<string, string>(async () => [], { maxItems: 0, lingerMs: 0 })).toThrow('maxItems');
    expect(() => new GroupCommit<string, string>(async () => [], { maxItems: 1, lingerMs: 3 })).toThrow('lingerMs');
  });
});
