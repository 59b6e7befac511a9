import type { TokenPrincipal } from './revoked-tokens.repository';

/** The channel the `auth_changed` triggers notify on (migration AuthChangeNotifications). */
export const AUTH_CHANGED_CHANNEL = 'docflow_auth_changed';

interface Entry {
  principal: TokenPrincipal;
  userId: number;
  expiresAt: number;
}

export interface PrincipalCacheOptions {
  /** How long an entry is trusted without a notification. Default 60 s. */
  ttlMs?: number;
  /** Entries kept at most; the oldest go first. Default 20,000. */
  maxEntries?: number;
  now?: () => number;
}

/**
 * What an authenticated request learns from the database (the user's role
 * and state, whether the token is revoked), kept per token for a short time
 * so that a request costs no query.
 *
 * It is only used while `live`: while this process LISTENs to the
 * notifications that triggers on `users` and `revoked_tokens` send on every
 * change (so every replica forgets a user's entries when that user changes,
 * is deleted or logs out, whoever made the change). When the listening
 * connection drops, notifications can be missed, so the cache empties and
 * every request goes to the database until it listens again.
 *
 * A load that raced with a notification is not stored: `generation` moves on
 * every invalidation, and a result read before it moved may be stale.
 */
export class PrincipalCache {
  private readonly entries = new Map<string, Entry>();
  private readonly byUser = new Map<number, Set<string>>();
  private generation = 0;
  private live = false;
  private readonly ttlMs: number;
  private readonly maxEntries: number;
  private readonly now: () => number;

  constructor(options: PrincipalCacheOptions = {}) {
    this.ttlMs = options.ttlMs ?? 60_000;
    this.maxEntries = options.maxEntries ?? 20_000;
    this.now = options.now ?? Date.now;
  }

  get size(): number {
    return this.entries.size;
  }

  get isLive(): boolean {
    return this.live;
  }

  /** The principal of `userId`'s token `jti`: from the cache when live and fresh, else from `load` (and kept when it may be). */
  async lookup(userId: number, jti: string, load: () => Promise<TokenPrincipal | null>): Promise<TokenPrincipal | null> {
    const key = `${userId}:${jti}`;
    if (this.live) {
      const hit = this.entries.get(key);
      if (hit && hit.expiresAt > this.now()) return hit.principal;
      if (hit) this.remove(key, hit.userId);
    }
    const generation = this.generation;
    const principal = await load();
    if (principal && this.live && generation === this.generation) this.store(key, userId, principal);
    return principal;
  }

  /** Forgets every entry of the user (a change of the user, or one of their tokens revoked). */
  invalidateUser(userId: number): void {
    this.generation++;
    for (const key of this.byUser.get(userId) ?? []) this.entries.delete(key);
    this.byUser.delete(userId);
  }

  /** Handles a notification payload: a user id, or anything else (then everything is forgotten). */
  onNotification(payload: string): void {
    const userId = Number(payload);
    if (Number.isSafeInteger(userId) && payload.trim() !== '') this.invalidateUser(userId);
    else this.clear();
  }

  /** Turns caching on (listening) or off (not listening: everything is forgotten). */
  setLive(live: boolean): void {
    this.clear();
    this.live = live;
  }

  clear(): void {
    this.generation++;
    this.entries.clear();
    this.byUser.clear();
  }

  private store(key: string, userId: number, principal: TokenPrincipal): void {
    if (this.entries.size >= this.maxEntries) {
      const oldest = this.entries.entries().next().value as [string, Entry] | undefined;
      if (oldest) this.remove(oldest[0], oldest[1].userId);
    }
    this.entries.set(key, { principal, userId, expiresAt: this.now() + this.ttlMs });
    let keys = this.byUser.get(userId);
    if (!keys) this.byUser.set(userId, (keys = new Set()));
    keys.add(key);
  }

  private remove(key: string, userId: number): void {
    this.entries.delete(key);
    const keys = this.byUser.get(userId);
    keys?.delete(key);
    if (keys && keys.size === 0) this.byUser.delete(userId);
  }
}
