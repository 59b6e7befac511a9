import type { HttpTarget, TargetReply } from './http-target';
import type { LoopbackSmtp } from './loopback-smtp';

/**
 * What an idempotent receiver does with its calls: the first call of a key is
 * the effect, later calls with the same key are repeats it absorbs. Tests and
 * the fault suite count both, to prove "exactly one effect per key" under
 * at-least-once delivery.
 */
export class EffectLedger {
  private readonly calls = new Map<string, number>();

  /** Records one call; true when it is the effect (the key's first call). */
  record(key: string): boolean {
    const n = (this.calls.get(key) ?? 0) + 1;
    this.calls.set(key, n);
    return n === 1;
  }

  /** Calls received with `key` (0 when none). */
  callsOf(key: string): number {
    return this.calls.get(key) ?? 0;
  }

  /** Keys with at least one call among `keys`, and the calls beyond the first of each. */
  summary(keys?: Iterable<string>): { effects: number; repeats: number } {
    const wanted = keys ? new Set(keys) : undefined;
    let effects = 0;
    let repeats = 0;
    for (const [key, n] of this.calls) {
      if (wanted && !wanted.has(key)) continue;
      effects += 1;
      repeats += n - 1;
    }
    return { effects, repeats };
  }
}

/**
 * Routes `POST <path>` of a target to a ledger keyed by the Idempotency-Key
 * header; `reply` decides the answer (and may delay it).
 */
export function idempotentRoute(target: HttpTarget, path: string, ledger: EffectLedger, reply: () => TargetReply | Promise<TargetReply> = () => ({ body: { ok: true } })): void {
  target.on(`POST ${path}`, async (hit) => {
    const key = String(hit.headers['idempotency-key'] ?? '');
    ledger.record(key);
    return reply();
  });
}

/** Counts mails received by a loopback SMTP server in a ledger keyed by their Subject line. */
export function ledgerOfMails(smtp: LoopbackSmtp, ledger: EffectLedger, from = 0): number {
  let seen = from;
  for (; seen < smtp.received.length; seen += 1) {
    const subject = /^Subject: *(.*)$/im.exec(smtp.received[seen]!.raw)?.[1]?.trim() ?? '';
    ledger.record(subject);
  }
  return seen;
}
