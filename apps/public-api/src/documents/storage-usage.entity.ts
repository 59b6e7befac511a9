import { Column, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';
import { bigintAsNumber } from './document.entity';

/** Bytes each user holds in storage, kept by guarded atomic updates (StorageQuotaRepository). */
@Entity({ name: 'user_storage_usage' })
export class UserStorageUsageEntity {
  @PrimaryColumn({ name: 'user_id', type: 'integer' })
  userId!: number;

  @Column({ name: 'used_bytes', type: 'bigint', default: 0, transformer: bigintAsNumber })
  usedBytes!: number;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}
