/** The verdict on one more request under a limit. */
export type RateVerdict = { allowed: true } | { allowed: false; retryAfterSeconds: number };

/**
 * Counts agent public-chat requests per key (an agent key, a session) in
 * one-minute windows. A tiny interface on purpose: the shared PostgreSQL-backed
 * limits being built on branch secb2 can replace the in-process one below
 * without touching the agents code.
 */
export interface ChatRateLimiter {
  hit(key: string, perMinute: number): Promise<RateVerdict>;
}

const WINDOW_MS = 60_000;
/** Windows kept at most; beyond it ended windows are swept, so the map stays bounded under many keys. */
const SWEEP_AT = 10_000;

/** Per process: with several public API processes each counts its own share (README, Limits). */
export class InProcessChatRateLimiter implements ChatRateLimiter {
  private readonly windows = new Map<string, { startedAt: number; count: number }>();

  constructor(private readonly now: () => number = Date.now) {}

  async hit(key: string, perMinute: number): Promise<RateVerdict> {
    const now = this.now();
    if (this.windows.size >= SWEEP_AT) for (const [k, w] of this.windows) if (now - w.startedAt >= WINDOW_MS) this.windows.delete(k);
    let window = this.windows.get(key);
    if (!window || now - window.startedAt >= WINDOW_MS) {
      window = { startedAt: now, count: 0 };
      this.windows.set(key, window);
    }
    if (window.count >= perMinute) return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((window.startedAt + WINDOW_MS - now) / 1000)) };
    window.count += 1;
    return { allowed: true };
  }
}
