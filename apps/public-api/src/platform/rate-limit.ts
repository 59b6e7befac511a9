/**
 * A fixed-window counter per key (spec 8: polling GET /workflow-executions/{id}
 * at most 60 times a minute). In memory, so per replica.
 */
export class FixedWindowLimiter {
  private readonly windows = new Map<string, { start: number; count: number }>();
  private lastSweep = 0;

  constructor(
    readonly limit: number,
    readonly windowMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Counts one hit; false when the key is over its limit (`limit`, else the limiter's) in the current window. Returns the seconds to wait too. */
  hit(key: string, limit: number = this.limit): { allowed: boolean; retryAfterSeconds: number } {
    const t = this.now();
    this.sweep(t);
    let w = this.windows.get(key);
    if (!w || t - w.start >= this.windowMs) {
      w = { start: t, count: 0 };
      this.windows.set(key, w);
    }
    w.count += 1;
    const retryAfterSeconds = Math.max(1, Math.ceil((w.start + this.windowMs - t) / 1000));
    return { allowed: w.count <= limit, retryAfterSeconds };
  }

  /** Drops expired windows now and then, so the map does not grow without bound. */
  private sweep(t: number): void {
    if (t - this.lastSweep < this.windowMs) return;
    this.lastSweep = t;
    for (const [key, w] of this.windows) if (t - w.start >= this.windowMs) this.windows.delete(key);
  }
}
