import { silentLogger } from '@docflow/service-kit';
import { DetectionEngine } from '../engine/detection-engine';
import type { TenantDetectors } from '../tenant/tenant-detectors';
import { ScopeSealer } from '../tokens/scope-seal';
import type { TenantDetectorSource } from './ports';
import { ShieldService } from './shield-service';

/** A tenant source whose answers the test releases one by one. */
class HeldSource implements TenantDetectorSource {
  loads = 0;
  private readonly waiting: ((d: TenantDetectors) => void)[] = [];

  load(tenant: string): Promise<TenantDetectors> {
    this.loads++;
    return new Promise((resolve) => this.waiting.push((d) => resolve({ ...d, tenant })));
  }

  release(word: string): void {
    this.waiting.shift()?.({ tenant: '', patterns: [], word_lists: [{ name: 'codes', entity_type: 'CODE', words: [word] }], recognizers: [] });
  }
}

const flush = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('ShieldService: tenant detectors', () => {
  let now = 0;
  const source = new HeldSource();
  const service = new ShieldService({ engine: new DetectionEngine(), sealer: new ScopeSealer('secret', 60_000), logger: silentLogger, tenants: source, tenantCacheMs: 30_000, now: () => now });
  const tokenise = (text: string) => service.tokenise({ texts: [text], tenant: '7', entityTypes: ['CODE'] });

  it("waits for a tenant's first set, then serves an expired set while the fresh one loads", async () => {
    let first = false;
    const call = tokenise('alpha and beta').then((r) => ((first = true), r));
    await flush();
    expect(first).toBe(false);
    source.release('alpha');
    expect((await call).entityCounts).toEqual({ CODE: 1 });

    now += 31_000;
    let second = false;
    const stale = tokenise('alpha and beta').then((r) => ((second = true), r));
    await flush();
    expect(second).toBe(true);
    expect((await stale).texts[0]).toMatch(/^CODE_[0-9a-f]{8} and beta$/);
    expect(source.loads).toBe(2);

    source.release('beta');
    await flush();
    expect((await tokenise('alpha and beta')).texts[0]).toMatch(/^alpha and CODE_[0-9a-f]{8}$/);
    expect(source.loads).toBe(2);
  });

  it('waits for a fresh set once the cached one is older than twice the cache time', async () => {
    now += 61_000;
    let done = false;
    const call = tokenise('alpha and gamma').then((r) => ((done = true), r));
    await flush();
    expect(done).toBe(false);
    source.release('gamma');
    expect((await call).texts[0]).toMatch(/^alpha and CODE_[0-9a-f]{8}$/);
  });
});

describe('ShieldService: detection for a caller that holds the scope', () => {
  const events: unknown[] = [];
  const service = new ShieldService({ engine: new DetectionEngine(), sealer: new ScopeSealer('secret', 60_000), logger: silentLogger, audit: { emit: (e) => events.push(e) } });
  const texts = ['Mail a@b.io', 'again a@b.io, card 4111 1111 1111 1111'];

  it('answers the spans the tokens replace, with one audit row and no tokens made', async () => {
    const sealed = await service.tokenise({ texts, entityTypes: ['EMAIL', 'CREDIT_CARD'] });
    const found = await service.detectTexts({ texts, entityTypes: ['EMAIL', 'CREDIT_CARD'] });
    expect(found.entities.map((list) => list.map((e) => [e.type, e.start, e.end]))).toEqual([
      [['EMAIL', 5, 11]],
      [
        ['EMAIL', 6, 12],
        ['CREDIT_CARD', 19, 38],
      ],
    ]);
    expect(found.entityCounts).toEqual(sealed.entityCounts);
    expect(found.latencies).not.toHaveProperty('tokenise_ms');
    expect(events).toHaveLength(2);
  });

  it('tokenises in a scope object that restores the reply, and seals nothing', async () => {
    const r = await service.tokeniseInScope({ texts, entityTypes: ['EMAIL'] });
    const token = /EMAIL_[0-9a-f]{8}/.exec(r.texts[0]!)![0];
    expect(r.texts).toEqual([`Mail ${token}`, `again ${token}, card 4111 1111 1111 1111`]);
    expect(r.scope.restore(`to ${token} and EMAIL_00000000`)).toBe('to a@b.io and EMAIL_00000000');
    expect(r).not.toHaveProperty('scopeId');
  });
});
