import { DataSource, LessThanOrEqual } from 'typeorm';
import type { UserRole } from '../users/user-role';
import { RevokedTokenEntity } from './revoked-token.entity';

export interface TokenPrincipal {
  id: number;
  username: string;
  email: string;
  role: UserRole;
  blocked: boolean;
  revoked: boolean;
}

export class RevokedTokensRepository {
  constructor(private readonly ds: DataSource) {}

  private get repo() {
    return this.ds.getRepository(RevokedTokenEntity);
  }

  isRevoked(jti: string): Promise<boolean> {
    return this.repo.existsBy({ jti });
  }

  /**
   * Everything a bearer request needs to know about its token's user, in one
   * round trip: this runs on every authenticated request.
   */
  async principal(userId: number, jti: string, tokenVersion: number): Promise<TokenPrincipal | null> {
    const rows: TokenPrincipal[] = await this.ds.query(
      `SELECT u.id, u.username, u.email, u.role, u.blocked,
              u.token_version > $3 OR EXISTS (SELECT 1 FROM revoked_tokens r WHERE r.jti = $2) AS revoked
         FROM users u
        WHERE u.id = $1`,
      [userId, jti, tokenVersion],
    );
    return rows[0] ?? null;
  }

  /** Refuses every token the user holds now (POST /auth/logout-all); the users trigger tells every replica's cache. */
  async revokeAll(userId: number): Promise<void> {
    await this.ds.query('UPDATE users SET token_version = token_version + 1 WHERE id = $1', [userId]);
  }

  /** Idempotent: revoking a token twice keeps the first row. */
  async revoke(jti: string, userId: number, expiresAt: Date): Promise<void> {
    await this.repo.createQueryBuilder().insert().values({ jti, userId, expiresAt }).orIgnore().execute();
  }

  /** Deletes rows of tokens that have expired by now (they are refused for their expiry anyway). */
  async purgeExpired(now = new Date()): Promise<number> {
    const result = await this.repo.delete({ expiresAt: LessThanOrEqual(now) });
    return result.affected ?? 0;
  }
}
