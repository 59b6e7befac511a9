import { Column, CreateDateColumn, Entity, PrimaryColumn, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';

export type DetectorKind = 'pattern' | 'word_list' | 'recognizer';

/** One of a tenant's detectors: an L1 pattern, an L2 word list or an L3 recognizer (spec 4.17 rule 4). */
@Entity({ name: 'data_shield_detectors' })
export class DataShieldDetectorEntity {
  @PrimaryGeneratedColumn({ type: 'integer' })
  id!: number;

  @Column({ name: 'owner_id', type: 'integer' })
  ownerId!: number;

  @Column({ type: 'varchar', length: 20 })
  kind!: DetectorKind;

  @Column({ type: 'varchar', length: 100 })
  name!: string;

  @Column({ name: 'entity_type', type: 'varchar', length: 40 })
  entityType!: string;

  @Column({ type: 'text', nullable: true })
  pattern!: string | null;

  @Column({ type: 'jsonb', nullable: true })
  words!: string[] | null;

  @Column({ name: 'context_words', type: 'jsonb', nullable: true })
  contextWords!: string[] | null;

  @Column({ type: 'real', nullable: true })
  score!: number | null;

  @Column({ name: 'score_threshold', type: 'real', nullable: true })
  scoreThreshold!: number | null;

  @Column({ type: 'boolean', default: true })
  enabled!: boolean;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}

/** A detector pack a tenant installed. */
@Entity({ name: 'data_shield_packs' })
export class DataShieldPackEntity {
  @PrimaryColumn({ name: 'owner_id', type: 'integer' })
  ownerId!: number;

  @PrimaryColumn({ type: 'varchar', length: 40 })
  pack!: string;

  @CreateDateColumn({ name: 'installed_at', type: 'timestamptz' })
  installedAt!: Date;
}

export type ShieldSubjectKind = 'agent' | 'chatbot';

/** Whether an agent's or a chatbot's model calls are shielded (off unless set; chatbots go beyond spec 4.17 rule 6). */
@Entity({ name: 'data_shield_subject_settings' })
export class DataShieldSubjectSettingEntity {
  @PrimaryColumn({ type: 'varchar', length: 20 })
  kind!: ShieldSubjectKind;

  @PrimaryColumn({ name: 'subject_id', type: 'integer' })
  subjectId!: number;

  @Column({ name: 'owner_id', type: 'integer' })
  ownerId!: number;

  @Column({ type: 'boolean', default: false })
  enabled!: boolean;

  @Column({ name: 'entity_types', type: 'jsonb', nullable: true })
  entityTypes!: string[] | null;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}
