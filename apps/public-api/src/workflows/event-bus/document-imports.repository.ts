import type { PublicApiDatabase } from '../../platform';

/** Idempotency keys of imported documents: one document per (user, key). */
export class DocumentImportsRepository {
  constructor(private readonly database: PublicApiDatabase) {}

  async find(userId: number, key: string): Promise<number | null> {
    const rows = (await this.database.query('SELECT document_id FROM document_imports WHERE user_id = $1 AND idempotency_key = $2', [userId, key])) as { document_id: number }[];
    return rows[0]?.document_id ?? null;
  }

  /** The document id kept for the key: this one, or the one a concurrent import recorded first. */
  async remember(userId: number, key: string, documentId: number): Promise<number> {
    const rows = (await this.database.query(
      `INSERT INTO document_imports (user_id, idempotency_key, document_id) VALUES ($1, $2, $3)
       ON CONFLICT (user_id, idempotency_key) DO UPDATE SET idempotency_key = EXCLUDED.idempotency_key
       RETURNING document_id`,
      [userId, key, documentId],
    )) as { document_id: number }[];
    return rows[0]?.document_id ?? documentId;
  }

  /**
   * `remember` for many keys in one statement: the document id kept for
   * each "user id:key" (the first one recorded for a key given twice).
   */
  async rememberMany(entries: { userId: number; key: string; documentId: number }[]): Promise<Map<string, number>> {
    const first = new Map<string, { userId: number; key: string; documentId: number }>();
    for (const e of entries) if (!first.has(`${e.userId}:${e.key}`)) first.set(`${e.userId}:${e.key}`, e);
    const unique = [...first.values()];
    const rows = (await this.database.query(
      `INSERT INTO document_imports (user_id, idempotency_key, document_id)
       SELECT * FROM unnest($1::int[], $2::text[], $3::int[])
       ON CONFLICT (user_id, idempotency_key) DO UPDATE SET idempotency_key = EXCLUDED.idempotency_key
       RETURNING user_id, idempotency_key, document_id`,
      [unique.map((e) => e.userId), unique.map((e) => e.key), unique.map((e) => e.documentId)],
    )) as { user_id: number; idempotency_key: string; document_id: number }[];
    return new Map(rows.map((r) => [`${r.user_id}:${r.idempotency_key}`, r.document_id]));
  }
}
