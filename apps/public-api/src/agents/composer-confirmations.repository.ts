import { createHash, randomBytes } from 'node:crypto';
import { isPlainObject } from '@docflow/workflow';
import type { PublicApiDatabase } from '../platform';

/** How long a preview can be confirmed. */
export const CONFIRMATION_TTL_MS = 15 * 60 * 1000;

/** JSON with object keys sorted at every depth, so equal arguments hash alike whatever their key order. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (isPlainObject(value)) {
    return `{${Object.keys(value)
      .sort()
      .filter((k) => value[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${canonical(value[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

export function argumentsHash(args: Record<string, unknown>): string {
  return createHash('sha256').update(canonical(args)).digest('hex');
}

export interface IssuedConfirmation {
  id: string;
  expiresAt: Date;
}

/**
 * Server-issued confirmations of the Composer's previews: an id bound to the
 * create tool, the hash of its exact arguments, the user and an expiry. A
 * creation consumes it once; the table is the one store every public API
 * process shares.
 */
export class ComposerConfirmationsRepository {
  constructor(
    private readonly database: PublicApiDatabase,
    private readonly now: () => number = Date.now,
  ) {}

  async issue(userId: number, tool: string, args: Record<string, unknown>): Promise<IssuedConfirmation> {
    const id = `cfm_${randomBytes(12).toString('base64url')}`;
    const expiresAt = new Date(this.now() + CONFIRMATION_TTL_MS);
    await this.database.query("DELETE FROM composer_confirmations WHERE expires_at < now() - interval '1 day'");
    await this.database.query('INSERT INTO composer_confirmations (id, user_id, tool, arguments_hash, expires_at) VALUES ($1, $2, $3, $4, $5)', [id, userId, tool, argumentsHash(args), expiresAt]);
    return { id, expiresAt };
  }

  /** Marks the confirmation used when it is this user's, for this tool and exactly these arguments, unexpired and unused; whether it was. */
  async consume(id: string, userId: number, tool: string, args: Record<string, unknown>): Promise<boolean> {
    const rows = (await this.database.query(
      `UPDATE composer_confirmations SET used_at = now()
        WHERE id = $1 AND user_id = $2 AND tool = $3 AND arguments_hash = $4 AND expires_at > $5 AND used_at IS NULL
        RETURNING id`,
      [id, userId, tool, argumentsHash(args), new Date(this.now())],
    )) as [unknown[], number] | unknown[];
    const returned = Array.isArray(rows[0]) ? (rows[0] as unknown[]) : (rows as unknown[]);
    return returned.length > 0;
  }
}
