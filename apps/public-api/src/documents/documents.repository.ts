import { DataSource, EntityManager } from 'typeorm';
import { GroupCommit, type ItemOutcome, preparedRows, queryRows, uniqueViolation } from '@docflow/persistence';
import { defineListSpec, type ListQuery, toPositional } from '@docflow/list-query';
import type { DocumentRecord, DocumentType, ExtractedPageRow, RagStatus, TextStatus, Visibility } from './document-types';
import { RAG_PROCESSING_STATUSES, RAG_STATUSES, TEXT_STATUSES, VISIBILITIES } from './document-types';
import { COLUMNS, DOCUMENT_COLUMNS, type DocumentRow, FROM, RETURNING, toRecord, withoutNul } from './document-row';

export type { DocumentRecord } from './document-types';

export interface NewDocument {
  title: string;
  description: string | null;
  tags: string[];
  visibility: Visibility;
  globalKey: string | null;
  ownerId: number;
  storageKey: string;
  originalStorageKey: string | null;
  originalFilename: string;
  mimeType: string;
  originalMimeType: string | null;
  fileSize: number;
  storageBytes: number;
  sha256: string;
  documentType: DocumentType | null;
  metadata: Record<string, unknown>;
  textStatus: TextStatus;
  /**
   * Set at insert for text files (their content is their text). A Buffer is
   * sent as it is: UTF-8 without NULs (sniffMime checked), never decoded to a
   * string in this process and encoded back.
   */
  extractedText?: string | Buffer | null;
}

export interface DocumentPatch {
  title?: string;
  description?: string | null;
  tags?: string[];
  metadata?: Record<string, unknown>;
  ragEnabled?: boolean;
  ragStatus?: RagStatus;
}

/** What deleting a document leaves to clean up outside the database. */
export interface DeletedDocument {
  id: number;
  ownerId: number;
  storageKeys: string[];
  storageBytes: number;
}

export interface DocumentText {
  id: number;
  title: string;
  mimeType: string;
  textStatus: TextStatus;
  textError: string | null;
  text: string | null;
  pages: ExtractedPageRow[] | null;
}

/** A row claimed for text extraction. */
export interface TextClaim {
  id: number;
  storageKey: string;
  mimeType: string;
  attempts: number;
}

export class GlobalKeyTakenError extends Error {
  constructor(readonly key: string) {
    super(`global key ${key} is taken`);
  }
}

export const DOCUMENTS_GLOBAL_KEY_INDEX = 'documents_global_key_key';

export const documentListSpec = defineListSpec({
  fields: {
    id: { column: '"d"."id"', type: 'integer' },
    title: { column: '"d"."title"', type: 'string' },
    description: { column: '"d"."description"', type: 'string' },
    visibility: { column: '"d"."visibility"', type: 'enum', values: VISIBILITIES },
    globalKey: { column: '"d"."global_key"', type: 'string' },
    mimeType: { column: '"d"."mime_type"', type: 'string' },
    mime_type: { column: '"d"."mime_type"', type: 'string' },
    fileSize: { column: '"d"."file_size"', type: 'bigint' },
    file_size: { column: '"d"."file_size"', type: 'bigint' },
    ragEnabled: { column: '"d"."rag_enabled"', type: 'boolean' },
    ragStatus: { column: '"d"."rag_status"', type: 'enum', values: RAG_STATUSES },
    rag_processing_status: { column: '"d"."rag_processing_status"', type: 'enum', values: RAG_PROCESSING_STATUSES },
    textStatus: { column: '"d"."text_status"', type: 'enum', values: TEXT_STATUSES },
    createdAt: { column: '"d"."created_at"', type: 'date' },
    updatedAt: { column: '"d"."updated_at"', type: 'date' },
    'owner.id': { column: '"d"."owner_id"', type: 'integer' },
    tags: { column: '"d"."tags"', type: 'json' },
    metadata: { column: '"d"."metadata"', type: 'json' },
  },
  relations: ['owner', 'collections'],
  defaultSort: [{ field: 'createdAt', direction: 'desc' }],
});
export type DocumentRelation = (typeof documentListSpec.relations)[number];

/** TypeORM's postgres driver answers UPDATE/DELETE ... RETURNING with [rows, rowCount]. */
export function returnedRows<T>(raw: unknown): T[] {
  if (Array.isArray(raw) && raw.length === 2 && Array.isArray(raw[0]) && typeof raw[1] === 'number') return raw[0] as T[];
  return raw as T[];
}

/** A BOM the text decoder would drop, so that the stored text is the same whether it came as a string or as bytes. */
const UTF8_BOM = Buffer.from([0xef, 0xbb, 0xbf]);

function extractedTextParam(text: string | Buffer | null | undefined): string | Buffer | null {
  if (text === undefined || text === null) return null;
  if (typeof text === 'string') return withoutNul(text);
  const bytes = text.subarray(0, 3).equals(UTF8_BOM) ? text.subarray(3) : text;
  return bytes.includes(0) ? withoutNul(bytes.toString('utf8')) : bytes;
}

/** The 18 values of INSERT_COLUMNS, in order. */
function insertValues(doc: NewDocument): unknown[] {
  return [
    doc.title,
    doc.description,
    JSON.stringify(doc.tags),
    doc.visibility,
    doc.globalKey,
    doc.ownerId,
    doc.storageKey,
    doc.originalStorageKey,
    doc.originalFilename,
    doc.mimeType,
    doc.originalMimeType,
    doc.fileSize,
    doc.storageBytes,
    doc.sha256,
    doc.documentType === null ? null : JSON.stringify(doc.documentType),
    JSON.stringify(doc.metadata),
    doc.textStatus,
    extractedTextParam(doc.extractedText),
  ];
}

const INSERT_COLUMNS = `title, description, tags, visibility, global_key, owner_id, storage_key, original_storage_key,
  original_filename, mime_type, original_mime_type, file_size, storage_bytes, sha256, document_type, metadata, text_status, extracted_text`;

/**
 * An upload's document row and its quota reservation in one statement (one
 * round trip, one commit): the owner's usage row grows by storage_bytes
 * ($13) unless that passes the quota ($19), and the document is inserted only
 * when it did. The upsert locks the owner's usage row, so parallel uploads
 * serialise on it and their sum can never pass the quota; a failing insert
 * (a taken global key) undoes the reservation with it.
 */
const INSERT_RESERVING = `
  WITH reserved AS (
    INSERT INTO user_storage_usage AS s (user_id, used_bytes) VALUES ($6, $13)
    ON CONFLICT (user_id) DO UPDATE SET used_bytes = s.used_bytes + EXCLUDED.used_bytes, updated_at = now()
    WHERE s.used_bytes + EXCLUDED.used_bytes <= $19
    RETURNING used_bytes
  ), inserted AS (
    INSERT INTO documents (${INSERT_COLUMNS})
    SELECT $1, $2, $3::jsonb, $4, $5, $6, $7, $8, $9, $10, $11, $12::bigint, $13, $14, $15::jsonb, $16::jsonb, $17, $18::text FROM reserved
    RETURNING ${DOCUMENT_COLUMNS.join(', ')}
  )
  SELECT inserted.*, (SELECT username FROM users WHERE users.id = inserted.owner_id) AS owner_username, reserved.used_bytes AS quota_used_bytes
  FROM inserted CROSS JOIN reserved`;

/** What a claimed extraction ends with. */
export type ExtractionOutcome = { status: 'completed'; text: string; pages: ExtractedPageRow[] | null } | { status: 'failed' | 'not_applicable' | 'pending'; error: string | null };

export class DocumentsRepository {
  constructor(private readonly ds: DataSource) {}

  async insert(doc: NewDocument): Promise<DocumentRecord> {
    try {
      const rows = await queryRows(
        this.ds,
        `INSERT INTO documents (${INSERT_COLUMNS})
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18::text)
         RETURNING ${RETURNING}`,
        insertValues(doc),
      );
      const row = (rows as DocumentRow[])[0];
      if (!row) throw new Error('INSERT INTO documents returned no row');
      return toRecord(row);
    } catch (err) {
      if (uniqueViolation(err) === DOCUMENTS_GLOBAL_KEY_INDEX) throw new GlobalKeyTakenError(doc.globalKey ?? '');
      throw err;
    }
  }

  /**
   * Inserts the document while adding its storageBytes to the owner's quota
   * usage, in one statement (INSERT_RESERVING); null, with nothing changed,
   * when that would pass quotaBytes.
   */
  async insertReserving(doc: NewDocument, quotaBytes: number): Promise<{ document: DocumentRecord; usedBytes: number } | null> {
    if (doc.storageBytes > quotaBytes) return null;
    try {
      const rows = await preparedRows(this.ds, 'documents_insert_reserving', INSERT_RESERVING, [...insertValues(doc), quotaBytes]);
      const row = rows[0] as (DocumentRow & { quota_used_bytes: string | number }) | undefined;
      return row ? { document: toRecord(row), usedBytes: Number(row.quota_used_bytes) } : null;
    } catch (err) {
      if (uniqueViolation(err) === DOCUMENTS_GLOBAL_KEY_INDEX) throw new GlobalKeyTakenError(doc.globalKey ?? '');
      throw err;
    }
  }

  async findOwned(id: number, ownerId: number): Promise<DocumentRecord | null> {
    const rows = (await this.ds.query(`SELECT ${COLUMNS} FROM ${FROM} WHERE d.id = $1 AND d.owner_id = $2`, [id, ownerId])) as DocumentRow[];
    return rows[0] ? toRecord(rows[0]) : null;
  }

  /** Any user's document (signed URLs carry their own authorisation). */
  async findById(id: number): Promise<DocumentRecord | null> {
    const rows = (await this.ds.query(`SELECT ${COLUMNS} FROM ${FROM} WHERE d.id = $1`, [id])) as DocumentRow[];
    return rows[0] ? toRecord(rows[0]) : null;
  }

  async findGlobalByKey(key: string): Promise<DocumentRecord | null> {
    const rows = (await this.ds.query(`SELECT ${COLUMNS} FROM ${FROM} WHERE d.global_key = $1 AND d.visibility = 'global'`, [key])) as DocumentRow[];
    return rows[0] ? toRecord(rows[0]) : null;
  }

  /** The owner's documents of the ids given (others and unknown ids are left out). */
  async findOwnedIds(ids: number[], ownerId: number, manager: EntityManager = this.ds.manager): Promise<number[]> {
    if (ids.length === 0) return [];
    const rows = (await manager.query('SELECT id FROM documents WHERE id = ANY($1::int[]) AND owner_id = $2', [ids, ownerId])) as { id: number }[];
    return rows.map((r) => r.id);
  }

  /** One page of documents matching `scope` (SQL over alias d, named parameters) and the list query. */
  /** Without a count when the request asks for none (`pagination[withCount]=false`). */
  async list(scope: { sql: string; params: Record<string, unknown> }, q: ListQuery): Promise<{ rows: DocumentRecord[]; total: number | undefined }> {
    const where = q.where ? `(${scope.sql}) AND ${q.where.sql}` : scope.sql;
    const params = { ...scope.params, ...(q.where?.params ?? {}), lq_limit: q.limit, lq_offset: q.offset };
    const order = q.orderBy.map((o) => `${o.column} ${o.direction}`).join(', ');
    const page = toPositional(`SELECT ${COLUMNS} FROM ${FROM} WHERE ${where} ORDER BY ${order} LIMIT :lq_limit OFFSET :lq_offset`, params);
    const rows = ((await this.ds.query(page.text, page.values)) as DocumentRow[]).map(toRecord);
    // A page that is not full ends the list: its total needs no count (most searches).
    if (!q.pagination.withCount) return { rows, total: undefined };
    if (rows.length < q.limit && (rows.length > 0 || q.offset === 0)) return { rows, total: q.offset + rows.length };
    const count = toPositional(`SELECT count(*)::int AS total FROM documents d WHERE ${where}`, { ...scope.params, ...(q.where?.params ?? {}) });
    const totals = (await this.ds.query(count.text, count.values)) as { total: number }[];
    return { rows, total: totals[0]?.total ?? 0 };
  }

  /** The documents of the ids given, in that order (missing ones left out). */
  async findByIds(ids: number[]): Promise<DocumentRecord[]> {
    if (ids.length === 0) return [];
    const rows = (await this.ds.query(`SELECT ${COLUMNS} FROM ${FROM} WHERE d.id = ANY($1::int[])`, [ids])) as DocumentRow[];
    const byId = new Map(rows.map((r) => [r.id, toRecord(r)]));
    return ids.flatMap((id) => byId.get(id) ?? []);
  }

  /** The collections (id, name) each of the documents is in. */
  async collectionsOf(documentIds: number[]): Promise<Map<number, { id: number; name: string }[]>> {
    const out = new Map<number, { id: number; name: string }[]>(documentIds.map((id) => [id, []]));
    if (documentIds.length === 0) return out;
    const rows = (await this.ds.query(
      `SELECT cd.document_id, c.id, c.name FROM collection_documents cd JOIN collections c ON c.id = cd.collection_id
       WHERE cd.document_id = ANY($1::int[]) ORDER BY c.id`,
      [documentIds],
    )) as { document_id: number; id: number; name: string }[];
    for (const r of rows) out.get(r.document_id)?.push({ id: r.id, name: r.name });
    return out;
  }

  /** For internal consumers: a user's documents, optionally only those with RAG enabled. */
  async listForUser(userId: number, enabledOnly: boolean, limit: number): Promise<DocumentRecord[]> {
    const rows = (await this.ds.query(
      `SELECT ${COLUMNS} FROM ${FROM} WHERE d.owner_id = $1 ${enabledOnly ? "AND d.rag_enabled AND d.rag_status <> 'disabled'" : ''} ORDER BY d.created_at DESC, d.id DESC LIMIT $2`,
      [userId, limit],
    )) as DocumentRow[];
    return rows.map(toRecord);
  }

  async update(id: number, ownerId: number, patch: DocumentPatch): Promise<DocumentRecord | null> {
    const sets: string[] = [];
    const values: unknown[] = [id, ownerId];
    const set = (column: string, value: unknown, cast = ''): void => {
      values.push(value);
      sets.push(`${column} = $${values.length}${cast}`);
    };
    if (patch.title !== undefined) set('title', patch.title);
    if (patch.description !== undefined) set('description', patch.description);
    if (patch.tags !== undefined) set('tags', JSON.stringify(patch.tags), '::jsonb');
    if (patch.metadata !== undefined) set('metadata', JSON.stringify(patch.metadata), '::jsonb');
    if (patch.ragEnabled !== undefined) set('rag_enabled', patch.ragEnabled);
    if (patch.ragStatus !== undefined) set('rag_status', patch.ragStatus);
    if (sets.length === 0) return this.findOwned(id, ownerId);
    const updated = returnedRows<DocumentRow>(await this.ds.query(`UPDATE documents SET ${sets.join(', ')}, updated_at = now() WHERE id = $1 AND owner_id = $2 RETURNING ${RETURNING}`, values));
    return updated[0] ? toRecord(updated[0]) : null;
  }

  /**
   * Deletes the owner's documents of the ids given and releases their bytes
   * from the owner's quota, in the caller's transaction when a manager is given.
   */
  async deleteOwned(ids: number[], ownerId: number, manager?: EntityManager): Promise<DeletedDocument[]> {
    if (ids.length === 0) return [];
    const run = async (m: EntityManager): Promise<DeletedDocument[]> => {
      const rows = returnedRows<{ id: number; owner_id: number; storage_key: string; original_storage_key: string | null; storage_bytes: string }>(
        await m.query('DELETE FROM documents WHERE id = ANY($1::int[]) AND owner_id = $2 RETURNING id, owner_id, storage_key, original_storage_key, storage_bytes', [ids, ownerId]),
      );
      const bytes = rows.reduce((sum, r) => sum + Number(r.storage_bytes), 0);
      if (bytes > 0) {
        await m.query('UPDATE user_storage_usage SET used_bytes = GREATEST(used_bytes - $2, 0), updated_at = now() WHERE user_id = $1', [ownerId, bytes]);
      }
      return rows.map((r) => ({
        id: r.id,
        ownerId: r.owner_id,
        storageKeys: [r.storage_key, ...(r.original_storage_key ? [r.original_storage_key] : [])],
        storageBytes: Number(r.storage_bytes),
      }));
    };
    return manager ? run(manager) : this.ds.transaction(run);
  }

  /** Text of a document the user owns, or of a global document. */
  async findText(id: number, userId: number): Promise<DocumentText | null> {
    const rows = (await this.ds.query(
      `SELECT id, title, mime_type, text_status, text_error, extracted_text, text_pages FROM documents
       WHERE id = $1 AND (owner_id = $2 OR visibility = 'global')`,
      [id, userId],
    )) as { id: number; title: string; mime_type: string; text_status: TextStatus; text_error: string | null; extracted_text: string | null; text_pages: ExtractedPageRow[] | null }[];
    const r = rows[0];
    if (!r) return null;
    return { id: r.id, title: r.title, mimeType: r.mime_type, textStatus: r.text_status, textError: r.text_error, text: r.extracted_text, pages: r.text_pages };
  }

  /**
   * Claims up to `batch` documents left behind: pending for longer than
   * `pendingGraceSeconds` (their process died before extracting) or
   * processing with a claim older than `staleSeconds` (it died while
   * extracting). Rows locked by another replica are skipped. Rows that
   * already used `maxAttempts` are marked failed instead.
   */
  async claimLeftBehind(options: { batch: number; pendingGraceSeconds: number; staleSeconds: number; maxAttempts: number }): Promise<TextClaim[]> {
    await this.ds.query(
      `UPDATE documents SET text_status = 'failed', text_error = 'Text extraction was interrupted too many times', text_claimed_at = NULL
       WHERE id IN (
         SELECT id FROM documents
         WHERE text_status IN ('pending', 'processing') AND text_attempts >= $1
           AND (text_claimed_at IS NULL OR text_claimed_at < now() - make_interval(secs => $2))
         ORDER BY id LIMIT 100 FOR UPDATE SKIP LOCKED)`,
      [options.maxAttempts, options.staleSeconds],
    );
    const rows = returnedRows<{ id: number; storage_key: string; mime_type: string; text_attempts: number }>(
      await this.ds.query(
        `UPDATE documents SET text_status = 'processing', text_claimed_at = now(), text_attempts = text_attempts + 1
         WHERE id IN (
           SELECT id FROM documents
           WHERE text_attempts < $4 AND (
             (text_status = 'pending' AND updated_at < now() - make_interval(secs => $2))
             OR (text_status = 'processing' AND text_claimed_at < now() - make_interval(secs => $3)))
           ORDER BY id LIMIT $1 FOR UPDATE SKIP LOCKED)
         RETURNING id, storage_key, mime_type, text_attempts`,
        [options.batch, options.pendingGraceSeconds, options.staleSeconds, options.maxAttempts],
      ),
    );
    return rows.map((r) => ({ id: r.id, storageKey: r.storage_key, mimeType: r.mime_type, attempts: r.text_attempts }));
  }

  /** Claims pending documents for text extraction in one statement: the claims of those still pending (any more), in the order of `ids`. */
  async claimPendingMany(ids: readonly number[]): Promise<TextClaim[]> {
    if (ids.length === 0) return [];
    const rows = returnedRows<{ id: number; storage_key: string; mime_type: string; text_attempts: number }>(
      await this.ds.query(
        `UPDATE documents SET text_status = 'processing', text_claimed_at = now(), text_attempts = text_attempts + 1
         WHERE id = ANY($1::int[]) AND text_status = 'pending' RETURNING id, storage_key, mime_type, text_attempts`,
        [[...ids]],
      ),
    );
    const byId = new Map(rows.map((r) => [r.id, { id: r.id, storageKey: r.storage_key, mimeType: r.mime_type, attempts: r.text_attempts }]));
    return ids.flatMap((id) => byId.get(id) ?? []);
  }

  /** Records the outcome of a claimed extraction (a no-op when the document was deleted meanwhile). */
  async finishExtraction(id: number, outcome: ExtractionOutcome): Promise<void> {
    return this.extractionResults.submit({ id, outcome });
  }

  /** Outcomes recorded while another record is in flight go together, in one statement. */
  private readonly extractionResults = new GroupCommit<{ id: number; outcome: ExtractionOutcome }, void>((items) => this.finishExtractions(items), { maxItems: 32, lingerMs: 0 });

  private async finishExtractions(items: { id: number; outcome: ExtractionOutcome }[]): Promise<ItemOutcome<void>[]> {
    if (items.length === 1) {
      await this.finishExtractionNow(items[0]!.id, items[0]!.outcome);
      return [{ ok: true, value: undefined }];
    }
    const text = (o: ExtractionOutcome) => (o.status === 'completed' ? withoutNul(o.text) : null);
    const pages = (o: ExtractionOutcome) => (o.status === 'completed' && o.pages !== null ? JSON.stringify(o.pages.map((p) => ({ page: p.page, text: withoutNul(p.text) }))) : null);
    await this.ds.query(
      `UPDATE documents d
          SET text_status = f.status,
              extracted_text = CASE WHEN f.status = 'completed' THEN f.text ELSE d.extracted_text END,
              text_pages = CASE WHEN f.status = 'completed' THEN f.pages::jsonb ELSE d.text_pages END,
              text_error = f.error, text_claimed_at = NULL
         FROM unnest($1::int[], $2::text[], $3::text[], $4::text[], $5::text[]) AS f(id, status, text, pages, error)
        WHERE d.id = f.id AND d.text_status = 'processing'`,
      [
        items.map((i) => i.id),
        items.map((i) => i.outcome.status),
        items.map((i) => text(i.outcome)),
        items.map((i) => pages(i.outcome)),
        items.map((i) => (i.outcome.status === 'completed' ? null : i.outcome.error)),
      ],
    );
    return items.map(() => ({ ok: true, value: undefined }));
  }

  private async finishExtractionNow(id: number, outcome: ExtractionOutcome): Promise<void> {
    if (outcome.status === 'completed') {
      const pages = outcome.pages === null ? null : JSON.stringify(outcome.pages.map((p) => ({ page: p.page, text: withoutNul(p.text) })));
      await this.ds.query(
        `UPDATE documents SET text_status = 'completed', extracted_text = $2, text_pages = $3::jsonb, text_error = NULL, text_claimed_at = NULL
         WHERE id = $1 AND text_status = 'processing'`,
        [id, withoutNul(outcome.text), pages],
      );
      return;
    }
    await this.ds.query(`UPDATE documents SET text_status = $2, text_error = $3, text_claimed_at = NULL WHERE id = $1 AND text_status = 'processing'`, [id, outcome.status, outcome.error]);
  }
}
