import { PrincipalCache } from './principal-cache';
import type { TokenPrincipal } from './revoked-tokens.repository';

const alice: TokenPrincipal = { id: 7, username: 'alice', email: 'alice@x.test', role: 'user', blocked: false, revoked: false };

function counter(principal: TokenPrincipal | null = alice) {
  const calls = { n: 0 };
  const load = async () => {
    calls.n++;
    return principal;
  };
  return { calls, load };
}

describe('PrincipalCache', () => {
  it('loads every time while not live', async () => {
    const cache = new PrincipalCache();
    const { calls, load } = counter();
    await cache.lookup(7, 'a', load);
    await cache.lookup(7, 'a', load);
    expect(calls.n).toBe(2);
    expect(cache.size).toBe(0);
  });

  it('keeps a principal per token while live, until its time is up', async () => {
    let now = 1000;
    const cache = new PrincipalCache({ ttlMs: 500, now: () => now });
    cache.setLive(true);
    const { calls, load } = counter();
    expect(await cache.lookup(7, 'a', load)).toEqual(alice);
    expect(await cache.lookup(7, 'a', load)).toEqual(alice);
    expect(calls.n).toBe(1);
    await cache.lookup(7, 'b', load);
    expect(calls.n).toBe(2);
    now += 501;
    await cache.lookup(7, 'a', load);
    expect(calls.n).toBe(3);
  });

  it('forgets one user on a notification with their id, everyone on any other payload', async () => {
    const cache = new PrincipalCache();
    cache.setLive(true);
    const { calls, load } = counter();
    await cache.lookup(7, 'a', load);
    await cache.lookup(8, 'b', load);
    cache.onNotification('7');
    await cache.lookup(7, 'a', load);
    await cache.lookup(8, 'b', load);
    expect(calls.n).toBe(3);
    cache.onNotification('');
    expect(cache.size).toBe(0);
  });

  it('does not keep a load that raced with an invalidation', async () => {
    const cache = new PrincipalCache();
    cache.setLive(true);
    let release: () => void = () => undefined;
    const slow = () => new Promise<TokenPrincipal>((resolve) => (release = () => resolve(alice)));
    const pending = cache.lookup(7, 'a', slow);
    cache.invalidateUser(7); // the user changed while the (now stale) row was being read
    release();
    await pending;
    expect(cache.size).toBe(0);
  });

  it('empties and stops caching when it stops listening, and never keeps a missing user', async () => {
    const cache = new PrincipalCache();
    cache.setLive(true);
    await cache.lookup(7, 'a', counter().load);
    expect(cache.size).toBe(1);
    cache.setLive(false);
    expect(cache.size).toBe(0);
    cache.setLive(true);
    await cache.lookup(9, 'z', counter(null).load);
    expect(cache.size).toBe(0);
  });

  it('drops the oldest entry beyond its size', async () => {
    const cache = new PrincipalCache({ maxEntries: 2 });
    cache.setLive(true);
    const { calls, load } = counter();
    await cache.lookup(1, 'a', load);
    await cache.lookup(2, 'b', load);
    await cache.lookup(3, 'c', load);
    expect(cache.size).toBe(2);
    await cache.lookup(1, 'a', load);
    expect(calls.n).toBe(4);
  });
});
