import { Column, CreateDateColumn, Entity, JoinColumn, ManyToOne, PrimaryGeneratedColumn, UpdateDateColumn, type ValueTransformer } from 'typeorm';
import { UserEntity } from '../identity';
import type { DocumentType, ExtractedPageRow, RagProcessingStatus, RagStatus, TextStatus, Visibility } from './document-types';

/** bigint columns hold byte counts far below 2^53: read them as numbers. */
export const bigintAsNumber: ValueTransformer = {
  to: (value: number | null | undefined) => value,
  from: (value: string | number | null) => (value === null ? null : Number(value)),
};

@Entity({ name: 'documents' })
export class DocumentEntity {
  @PrimaryGeneratedColumn({ type: 'integer' })
  id!: number;

  @Column({ type: 'varchar', length: 255 })
  title!: string;

  @Column({ type: 'text', nullable: true })
  description!: string | null;

  @Column({ type: 'jsonb', default: () => "'[]'" })
  tags!: string[];

  @Column({ type: 'varchar', length: 10, default: 'user' })
  visibility!: Visibility;

  @Column({ name: 'global_key', type: 'varchar', length: 128, nullable: true })
  globalKey!: string | null;

  @Column({ name: 'owner_id', type: 'integer' })
  ownerId!: number;

  @ManyToOne(() => UserEntity, { onDelete: 'RESTRICT' })
  @JoinColumn({ name: 'owner_id' })
  owner?: UserEntity;

  /** Where the served content (the PDF for a converted DOCX) is stored. */
  @Column({ name: 'storage_key', type: 'varchar', length: 512 })
  storageKey!: string;

  /** The uploaded DOCX, kept when it was converted to PDF. */
  @Column({ name: 'original_storage_key', type: 'varchar', length: 512, nullable: true })
  originalStorageKey!: string | null;

  /** The client's filename, sanitised; used only in Content-Disposition. */
  @Column({ name: 'original_filename', type: 'varchar', length: 255 })
  originalFilename!: string;

  @Column({ name: 'mime_type', type: 'varchar', length: 127 })
  mimeType!: string;

  @Column({ name: 'original_mime_type', type: 'varchar', length: 127, nullable: true })
  originalMimeType!: string | null;

  /** Bytes of the served content. */
  @Column({ name: 'file_size', type: 'bigint', transformer: bigintAsNumber })
  fileSize!: number;

  /** Bytes held against the owner's quota (served content plus the kept original). */
  @Column({ name: 'storage_bytes', type: 'bigint', transformer: bigintAsNumber })
  storageBytes!: number;

  @Column({ type: 'char', length: 64 })
  sha256!: string;

  @Column({ name: 'document_type', type: 'jsonb', nullable: true })
  documentType!: DocumentType | null;

  @Column({ type: 'jsonb', default: () => "'{}'" })
  metadata!: Record<string, unknown>;

  @Column({ name: 'text_status', type: 'varchar', length: 20, default: 'pending' })
  textStatus!: TextStatus;

  @Column({ name: 'text_error', type: 'text', nullable: true })
  textError!: string | null;

  @Column({ name: 'text_attempts', type: 'integer', default: 0 })
  textAttempts!: number;

  @Column({ name: 'text_claimed_at', type: 'timestamptz', nullable: true })
  textClaimedAt!: Date | null;

  /** Large: loaded only when asked for (getDocumentText). */
  @Column({ name: 'extracted_text', type: 'text', nullable: true, select: false })
  extractedText?: string | null;

  @Column({ name: 'text_pages', type: 'jsonb', nullable: true, select: false })
  textPages?: ExtractedPageRow[] | null;

  @Column({ name: 'rag_enabled', type: 'boolean', default: false })
  ragEnabled!: boolean;

  @Column({ name: 'rag_status', type: 'varchar', length: 20, default: 'disabled' })
  ragStatus!: RagStatus;

  @Column({ name: 'rag_processing_status', type: 'varchar', length: 20, nullable: true })
  ragProcessingStatus!: RagProcessingStatus | null;

  @Column({ name: 'rag_chunk_count', type: 'integer', default: 0 })
  ragChunkCount!: number;

  @Column({ name: 'rag_error', type: 'text', nullable: true })
  ragError!: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}
