import type { LookupAddress } from 'node:dns';
import { createGuardedLookup, type HostResolver } from './guarded-lookup';
import { OutboundRequestError } from './outbound-error';

interface LookupOutcome {
  error: NodeJS.ErrnoException | null;
  address: string | LookupAddress[];
  family?: number;
}

function lookup(resolve: HostResolver, guard: boolean, all: boolean, family: 0 | 4 | 6 = 0): Promise<LookupOutcome> {
  const fn = createGuardedLookup(resolve, guard);
  return new Promise((done) => fn('host.example', { all, family }, (error, address, fam) => done({ error, address, family: fam })));
}

const mixed: HostResolver = () =>
  Promise.resolve([
    { address: '93.184.216.34', family: 4 },
    { address: '::ffff:10.0.0.1', family: 6 },
  ]);
const publicOnly: HostResolver = () =>
  Promise.resolve([
    { address: '93.184.216.34', family: 4 },
    { address: '2606:2800:220:1:248:1893:25c8:1946', family: 6 },
  ]);

describe('createGuardedLookup', () => {
  it('refuses the name when any address is forbidden, whichever one the socket would pick', async () => {
    for (const all of [true, false]) {
      const outcome = await lookup(mixed, true, all);
      expect(outcome.error).toBeInstanceOf(OutboundRequestError);
      expect(outcome.error).toMatchObject({ kind: 'configuration', retryable: false });
      expect(outcome.error?.message).toBe('Destination host.example is not allowed or does not resolve to a public address');
    }
  });

  it('hands back exactly the checked addresses, in the shape asked for', async () => {
    expect(await lookup(publicOnly, true, true)).toEqual({
      error: null,
      address: [
        { address: '93.184.216.34', family: 4 },
        { address: '2606:2800:220:1:248:1893:25c8:1946', family: 6 },
      ],
      family: undefined,
    });
    expect(await lookup(publicOnly, true, false)).toEqual({ error: null, address: '93.184.216.34', family: 4 });
    expect(await lookup(publicOnly, true, false, 6)).toEqual({ error: null, address: '2606:2800:220:1:248:1893:25c8:1946', family: 6 });
  });

  it('does not check addresses of an allowed host', async () => {
    expect(await lookup(mixed, false, false, 6)).toEqual({ error: null, address: '::ffff:10.0.0.1', family: 6 });
  });

  it('answers a name without addresses of the asked family as it answers a forbidden one', async () => {
    const v4only: HostResolver = () => Promise.resolve([{ address: '93.184.216.34', family: 4 }]);
    const outcome = await lookup(v4only, true, true, 6);
    expect(outcome.error).toMatchObject({ kind: 'configuration', retryable: false, message: 'Destination host.example is not allowed or does not resolve to a public address' });
  });

  it('keeps the DNS detail for an allowed host (the operator listed it)', async () => {
    const missing: HostResolver = () => Promise.reject(Object.assign(new Error('ENOTFOUND'), { code: 'ENOTFOUND' }));
    const outcome = await lookup(missing, false, false);
    expect(outcome.error).toMatchObject({ kind: 'dns', retryable: false, message: 'DNS lookup failed for host.example: ENOTFOUND' });
  });
});
