import { InProcessChatRateLimiter } from './chat-rate-limit';

describe('InProcessChatRateLimiter', () => {
  it('allows the limit a minute per key, says when to retry, and starts afresh in the next window', async () => {
    let now = 1_000_000;
    const limiter = new InProcessChatRateLimiter(() => now);
    for (let i = 0; i < 3; i++) expect(await limiter.hit('k', 3)).toEqual({ allowed: true });
    now += 20_000;
    expect(await limiter.hit('k', 3)).toEqual({ allowed: false, retryAfterSeconds: 40 });
    // Another key has its own count.
    expect(await limiter.hit('other', 3)).toEqual({ allowed: true });
    now += 40_000;
    expect(await limiter.hit('k', 3)).toEqual({ allowed: true });
  });
});
