import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';

/** A stored credential; `sealedFields` is the AES-256-GCM sealed JSON of its fields, never sent anywhere. */
@Entity({ name: 'credentials' })
export class CredentialEntity {
  @PrimaryGeneratedColumn({ type: 'integer' })
  id!: number;

  @Column({ name: 'owner_id', type: 'integer' })
  ownerId!: number;

  @Column({ type: 'varchar', length: 255 })
  name!: string;

  @Column({ type: 'varchar', length: 100 })
  provider!: string;

  @Column({ type: 'text', nullable: true })
  description!: string | null;

  @Column({ name: 'field_names', type: 'jsonb' })
  fieldNames!: string[];

  @Column({ name: 'sealed_fields', type: 'text', select: false })
  sealedFields!: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}
