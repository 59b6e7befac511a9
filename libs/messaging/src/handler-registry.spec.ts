import { NonRetryableMessageError } from './errors';
import { HandlerRegistry } from './handler-registry';
import type { MessageMeta } from './types';

type Kind = 'a' | 'b' | 'c';
const meta: MessageMeta = { deliveryCount: 1, redelivered: false, headers: {}, correlationId: 'c-1', messageId: 'm-1', queue: 'q' };

describe('HandlerRegistry', () => {
  it('dispatches each kind to its own handler with the message and meta', async () => {
    const seen: string[] = [];
    const registry = new HandlerRegistry<Kind, { n: number }>('test').register('a', async (m, md) => void seen.push(`a:${m.n}:${md.messageId}`)).register('b', async (m) => void seen.push(`b:${m.n}`));
    await registry.dispatch('b', { n: 2 }, meta);
    await registry.dispatch('a', { n: 1 }, meta);
    expect(seen).toEqual(['b:2', 'a:1:m-1']);
    expect(registry.kinds().sort()).toEqual(['a', 'b']);
  });

  it('refuses a second handler for the same kind', () => {
    const registry = new HandlerRegistry<Kind, unknown>('jobs').register('a', async () => undefined);
    expect(() => registry.register('a', async () => undefined)).toThrow("jobs: a handler for 'a' is already registered");
  });

  it('names every missing kind when incomplete and passes when complete', () => {
    const registry = new HandlerRegistry<Kind, unknown>('jobs').register('b', async () => undefined);
    expect(() => registry.assertComplete(['a', 'b', 'c'])).toThrow("jobs: no handler registered for 'a', 'c'");
    registry.register('a', async () => undefined).register('c', async () => undefined);
    expect(() => registry.assertComplete(['a', 'b', 'c'])).not.toThrow();
  });

  it('rejects an unknown kind as not retryable so it is dead-lettered', async () => {
    const registry = new HandlerRegistry<Kind, unknown>('jobs').register('a', async () => undefined);
    await expect(registry.dispatch('zzz', {}, meta)).rejects.toBeInstanceOf(NonRetryableMessageError);
    expect(registry.has('a')).toBe(true);
    expect(registry.has('zzz')).toBe(false);
  });

  it('propagates a handler failure unchanged', async () => {
    const boom = new Error('boom');
    const registry = new HandlerRegistry<Kind, unknown>().register('c', () => Promise.reject(boom));
    await expect(registry.dispatch('c', {}, meta)).rejects.toBe(boom);
  });
});
