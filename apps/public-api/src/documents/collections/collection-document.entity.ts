import { CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

/** Membership of a document in a collection (a document may be in several). */
@Entity({ name: 'collection_documents' })
export class CollectionDocumentEntity {
  @PrimaryColumn({ name: 'collection_id', type: 'integer' })
  collectionId!: number;

  @PrimaryColumn({ name: 'document_id', type: 'integer' })
  documentId!: number;

  @CreateDateColumn({ name: 'added_at', type: 'timestamptz' })
  addedAt!: Date;
}
