import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

/** The one live step-up code of a user (a new request replaces it). Only its HMAC is stored. */
@Entity({ name: 'step_up_codes' })
export class StepUpCodeEntity {
  @PrimaryColumn({ name: 'user_id', type: 'integer' })
  userId!: number;

  @Column({ name: 'code_hash', type: 'varchar', length: 64 })
  codeHash!: string;

  @Column({ name: 'expires_at', type: 'timestamptz' })
  expiresAt!: Date;

  @Column({ type: 'integer', default: 0 })
  attempts!: number;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
