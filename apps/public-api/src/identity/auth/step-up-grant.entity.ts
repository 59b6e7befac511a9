import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

/** A verified step-up for one access token (by jti), valid until expires_at. */
@Entity({ name: 'step_up_grants' })
export class StepUpGrantEntity {
  @PrimaryColumn({ type: 'uuid' })
  jti!: string;

  @Column({ name: 'user_id', type: 'integer' })
  userId!: number;

  @Column({ name: 'expires_at', type: 'timestamptz' })
  expiresAt!: Date;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
