import { createHmac, randomBytes } from 'node:crypto';
import type { DetectedEntity } from '../entities';

/** `<ENTITY_TYPE>_<8 hex>` (spec 4.17 rule 1); a type may hold single underscores (US_BANK_NUMBER_1a2b3c4d). */
export const TOKEN_PATTERN = /[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*_[0-9a-f]{8}(?![0-9A-Za-z])/g;
const MAX_ATTEMPTS = 64;

/** What a token replaces: a detected entity's type and span (`end` exclusive). */
export type EntitySpan = Pick<DetectedEntity, 'type' | 'start' | 'end'>;

/**
 * The tokens of one request scope. Each is a keyed HMAC-SHA256 of the type
 * and value under a random per-scope key: the same value gives the same
 * token inside the scope and an unrelated one in another scope. A token
 * already used for another value, or already written in the scope's own
 * texts, is a collision: the next counter is tried. The reverse map lives in
 * this object only; nothing here logs it.
 */
export class TokenScope {
  /** Made at the first new token: a scope opened only to restore needs none (and the random bytes cost a system call). */
  private key: Buffer | undefined;
  private readonly byValue = new Map<string, string>();
  private readonly byToken = new Map<string, string>();

  constructor(key?: Buffer, entries?: Iterable<[token: string, value: string]>) {
    this.key = key;
    for (const [token, value] of entries ?? []) {
      this.byToken.set(token, value);
    }
  }

  get size(): number {
    return this.byToken.size;
  }

  /** Token → value pairs, for sealing into a scope handle. */
  entries(): [string, string][] {
    return [...this.byToken.entries()];
  }

  /** The token for a value; `avoid` tells whether a token string already appears in the texts. */
  tokenFor(type: string, value: string, avoid?: (token: string) => boolean): string {
    const id = `${type}\u0000${value}`;
    const known = this.byValue.get(id);
    if (known) return known;
    this.key ??= randomBytes(32);
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const mac = createHmac('sha256', this.key)
        .update(attempt === 0 ? id : `${id}\u0000${attempt}`)
        .digest('hex')
        .slice(0, 8);
      const token = `${type}_${mac}`;
      if (this.byToken.has(token) || avoid?.(token)) continue;
      this.byValue.set(id, token);
      this.byToken.set(token, value);
      return token;
    }
    throw new Error('could not find a free token in this scope');
  }

  /** Replaces each entity (non-overlapping, any order) by its token. */
  tokenise(text: string, entities: readonly EntitySpan[], avoid?: (token: string) => boolean): string {
    const sorted = [...entities].sort((a, b) => a.start - b.start);
    let out = '';
    let at = 0;
    for (const e of sorted) {
      if (e.start < at) continue;
      out += text.slice(at, e.start) + this.tokenFor(e.type, text.slice(e.start, e.end), avoid);
      at = e.end;
    }
    return out + text.slice(at);
  }

  /** Every known token back to its value; unknown token-shaped text is left as it is. */
  restore(text: string): string {
    if (this.byToken.size === 0) return text;
    return text.replace(TOKEN_PATTERN, (match) => {
      const value = this.byToken.get(match);
      if (value !== undefined) return value;
      // A token glued to upper-case text before it ("IDPERSON_1a2b3c4d"): try its suffixes.
      for (let i = 1; i < match.length - 9; i++) {
        const v = this.byToken.get(match.slice(i));
        if (v !== undefined) return match.slice(0, i) + v;
      }
      return match;
    });
  }
}

function isTokenChar(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95;
}

/**
 * Restores a streamed reply chunk by chunk: a token split across chunks is
 * restored whole. Tokens are made of letters, digits and `_` only, so text
 * up to the last other character can be restored at once; the trailing run
 * of token characters waits for the next chunk or end(). Restoring the
 * pieces gives exactly what restoring the whole reply would.
 */
export class StreamRestorer {
  private pending = '';

  constructor(private readonly scope: Pick<TokenScope, 'restore'>) {}

  push(chunk: string): string {
    this.pending += chunk;
    let cut = this.pending.length;
    while (cut > 0 && isTokenChar(this.pending.charCodeAt(cut - 1))) cut--;
    if (cut === 0) return '';
    const ready = this.pending.slice(0, cut);
    this.pending = this.pending.slice(cut);
    return this.scope.restore(ready);
  }

  end(): string {
    const rest = this.scope.restore(this.pending);
    this.pending = '';
    return rest;
  }
}
