import { DataSource, LessThanOrEqual } from 'typeorm';
import { RevokedTokenEntity } from './revoked-token.entity';

export class RevokedTokensRepository {
  constructor(private readonly ds: DataSource) {}

  private get repo() {
    return this.ds.getRepository(RevokedTokenEntity);
  }

  isRevoked(jti: string): Promise<boolean> {
    return this.repo.existsBy({ jti });
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
