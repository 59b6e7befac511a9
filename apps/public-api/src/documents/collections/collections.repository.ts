import { DataSource, EntityManager, QueryFailedError } from 'typeorm';
import { defineListSpec, type ListQuery, toPositional } from '@docflow/list-query';
import { type DeletedDocument, DocumentsRepository, returnedRows } from '../documents.repository';
import type { Visibility } from '../document-types';

export interface CollectionRecord {
  id: number;
  name: string;
  description: string | null;
  ownerId: number;
  /** Read only when the owner is populated (`populate=owner` or `*`). */
  ownerUsername?: string | null;
  createdAt: Date;
  updatedAt: Date;
}

/** How a collection lists its documents (interface spec 2.3). */
export interface CollectionDocumentSummary {
  id: number;
  title: string;
  mimeType: string;
  visibility: Visibility;
  owner: { id: number; username: string | null };
}

export type CreateCollectionResult = { ok: true; collection: CollectionRecord; documentIds: number[] } | { ok: false; missingDocumentIds: number[] };

export const collectionListSpec = defineListSpec({
  fields: {
    id: { column: '"c"."id"', type: 'integer' },
    name: { column: '"c"."name"', type: 'string' },
    description: { column: '"c"."description"', type: 'string' },
    createdAt: { column: '"c"."created_at"', type: 'date' },
    updatedAt: { column: '"c"."updated_at"', type: 'date' },
  },
  relations: ['documents', 'owner'],
  defaultSort: [{ field: 'createdAt', direction: 'desc' }],
});
export type CollectionRelation = (typeof collectionListSpec.relations)[number];

interface CollectionRow {
  id: number;
  name: string;
  description: string | null;
  owner_id: number;
  created_at: Date;
  updated_at: Date;
  owner_username?: string | null;
}

const COLUMNS = 'c.id, c.name, c.description, c.owner_id, c.created_at, c.updated_at';

function toRecord(r: CollectionRow): CollectionRecord {
  const record: CollectionRecord = { id: r.id, name: r.name, description: r.description, ownerId: r.owner_id, createdAt: r.created_at, updatedAt: r.updated_at };
  if (r.owner_username !== undefined) record.ownerUsername = r.owner_username;
  return record;
}

export class CollectionsRepository {
  private readonly documents: DocumentsRepository;

  constructor(private readonly ds: DataSource) {
    this.documents = new DocumentsRepository(ds);
  }

  /** Creates the collection with the documents given, all of which must be the owner's. */
  async create(ownerId: number, name: string, description: string | null, documentIds: number[]): Promise<CreateCollectionResult> {
    const wanted = [...new Set(documentIds)];
    return this.ds.transaction(async (m) => {
      const owned = new Set(await this.documents.findOwnedIds(wanted, ownerId, m));
      const missing = wanted.filter((id) => !owned.has(id));
      if (missing.length > 0) return { ok: false, missingDocumentIds: missing };
      const rows = (await m.query(`INSERT INTO collections (name, description, owner_id) VALUES ($1, $2, $3) RETURNING id, name, description, owner_id, created_at, updated_at`, [
        name,
        description,
        ownerId,
      ])) as CollectionRow[];
      const row = rows[0];
      if (!row) throw new Error('INSERT INTO collections returned no row');
      if (wanted.length > 0) {
        await m.query('INSERT INTO collection_documents (collection_id, document_id) SELECT $1, unnest($2::int[])', [row.id, wanted]);
      }
      return { ok: true, collection: toRecord(row), documentIds: wanted };
    });
  }

  async findOwned(id: number, ownerId: number): Promise<CollectionRecord | null> {
    const rows = (await this.ds.query(`SELECT ${COLUMNS} FROM collections c WHERE c.id = $1 AND c.owner_id = $2`, [id, ownerId])) as CollectionRow[];
    return rows[0] ? toRecord(rows[0]) : null;
  }

  async list(ownerId: number, q: ListQuery): Promise<{ rows: CollectionRecord[]; total: number }> {
    const where = q.where ? `"c"."owner_id" = :ownerId AND ${q.where.sql}` : '"c"."owner_id" = :ownerId';
    const params = { ownerId, ...(q.where?.params ?? {}) };
    const order = q.orderBy.map((o) => `${o.column} ${o.direction}`).join(', ');
    const owner = q.populate.includes('owner') ? { columns: ', u.username AS owner_username', join: ' LEFT JOIN users u ON u.id = c.owner_id' } : { columns: '', join: '' };
    const page = toPositional(`SELECT ${COLUMNS}${owner.columns} FROM collections c${owner.join} WHERE ${where} ORDER BY ${order} LIMIT :lq_limit OFFSET :lq_offset`, {
      ...params,
      lq_limit: q.limit,
      lq_offset: q.offset,
    });
    const count = toPositional(`SELECT count(*)::int AS total FROM collections c WHERE ${where}`, params);
    const [rows, totals] = (await Promise.all([this.ds.query(page.text, page.values), this.ds.query(count.text, count.values)])) as [CollectionRow[], { total: number }[]];
    return { rows: rows.map(toRecord), total: totals[0]?.total ?? 0 };
  }

  /** The documents of each collection, in the order they were added. */
  async documentSummaries(collectionIds: number[]): Promise<Map<number, CollectionDocumentSummary[]>> {
    const out = new Map<number, CollectionDocumentSummary[]>(collectionIds.map((id) => [id, []]));
    if (collectionIds.length === 0) return out;
    const rows = (await this.ds.query(
      `SELECT cd.collection_id, d.id, d.title, d.mime_type, d.visibility, d.owner_id, u.username
       FROM collection_documents cd JOIN documents d ON d.id = cd.document_id LEFT JOIN users u ON u.id = d.owner_id
       WHERE cd.collection_id = ANY($1::int[]) ORDER BY cd.added_at, d.id`,
      [collectionIds],
    )) as { collection_id: number; id: number; title: string; mime_type: string; visibility: Visibility; owner_id: number; username: string | null }[];
    for (const r of rows) {
      out.get(r.collection_id)?.push({ id: r.id, title: r.title, mimeType: r.mime_type, visibility: r.visibility, owner: { id: r.owner_id, username: r.username } });
    }
    return out;
  }

  async documentIds(collectionId: number): Promise<number[]> {
    const rows = (await this.ds.query('SELECT document_id FROM collection_documents WHERE collection_id = $1 ORDER BY added_at, document_id', [collectionId])) as {
      document_id: number;
    }[];
    return rows.map((r) => r.document_id);
  }

  async isMember(collectionId: number, documentId: number): Promise<boolean> {
    const rows = (await this.ds.query('SELECT 1 FROM collection_documents WHERE collection_id = $1 AND document_id = $2', [collectionId, documentId])) as unknown[];
    return rows.length > 0;
  }

  /** Adds the document (a no-op when it is already in); false when the collection or document was deleted meanwhile. */
  async addDocument(collectionId: number, documentId: number): Promise<boolean> {
    try {
      await this.ds.transaction(async (m) => {
        await m.query('INSERT INTO collection_documents (collection_id, document_id) VALUES ($1, $2) ON CONFLICT DO NOTHING', [collectionId, documentId]);
        await m.query('UPDATE collections SET updated_at = now() WHERE id = $1', [collectionId]);
      });
      return true;
    } catch (err) {
      if (err instanceof QueryFailedError && (err.driverError as { code?: string }).code === '23503') return false;
      throw err;
    }
  }

  /** Removes the document from the collection only; false when it was not in it. */
  async removeDocument(collectionId: number, documentId: number): Promise<boolean> {
    return this.ds.transaction(async (m) => {
      const removed = returnedRows(await m.query('DELETE FROM collection_documents WHERE collection_id = $1 AND document_id = $2 RETURNING document_id', [collectionId, documentId]));
      if (removed.length > 0) await m.query('UPDATE collections SET updated_at = now() WHERE id = $1', [collectionId]);
      return removed.length > 0;
    });
  }

  /** Documents and bytes a collection holds. */
  async storageOf(collectionId: number): Promise<{ documentCount: number; totalBytes: number }> {
    const rows = (await this.ds.query(
      `SELECT count(*)::int AS n, COALESCE(sum(d.storage_bytes), 0)::bigint AS bytes
       FROM collection_documents cd JOIN documents d ON d.id = cd.document_id WHERE cd.collection_id = $1`,
      [collectionId],
    )) as { n: number; bytes: string }[];
    return { documentCount: rows[0]?.n ?? 0, totalBytes: Number(rows[0]?.bytes ?? 0) };
  }

  /**
   * Deletes the collection and, in the same transaction, the documents that
   * are in no other collection (their bytes go back to the owner's quota).
   * Null when the owner has no such collection.
   */
  async deleteWithExclusiveDocuments(collectionId: number, ownerId: number): Promise<DeletedDocument[] | null> {
    return this.ds.transaction(async (m: EntityManager) => {
      const locked = (await m.query('SELECT id FROM collections WHERE id = $1 AND owner_id = $2 FOR UPDATE', [collectionId, ownerId])) as unknown[];
      if (locked.length === 0) return null;
      // Lock the member documents' rows so that no concurrent add-document slips in between.
      const exclusive = (await m.query(
        `SELECT d.id FROM collection_documents cd JOIN documents d ON d.id = cd.document_id
         WHERE cd.collection_id = $1 AND d.owner_id = $2
           AND NOT EXISTS (SELECT 1 FROM collection_documents other WHERE other.document_id = cd.document_id AND other.collection_id <> $1)
         FOR UPDATE OF d`,
        [collectionId, ownerId],
      )) as { id: number }[];
      await m.query('DELETE FROM collections WHERE id = $1', [collectionId]);
      return this.documents.deleteOwned(
        exclusive.map((r) => r.id),
        ownerId,
        m,
      );
    });
  }
}
