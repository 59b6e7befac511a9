import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

/** A logged-out access token: refused until it would have expired anyway, then purged. */
@Entity({ name: 'revoked_tokens' })
export class RevokedTokenEntity {
  @PrimaryColumn({ type: 'uuid' })
  jti!: string;

  @Column({ name: 'user_id', type: 'integer' })
  userId!: number;

  @Column({ name: 'expires_at', type: 'timestamptz' })
  expiresAt!: Date;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
