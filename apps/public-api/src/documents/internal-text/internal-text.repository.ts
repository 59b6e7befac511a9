import type { DataSource } from 'typeorm';

/** A document's extracted text as the internal endpoint returns it. */
export interface DocumentTextRow {
  id: number;
  ownerId: number;
  visibility: 'user' | 'global';
  title: string;
  mimeType: string;
  textStatus: string;
  textError: string | null;
  text: string | null;
  pages: { page: number; text: string }[] | null;
}

/** Reads documents' extracted text for internal services (GET /internal/documents/{id}/text). */
export class InternalTextRepository {
  constructor(private readonly ds: DataSource) {}

  async documentText(id: number): Promise<DocumentTextRow | null> {
    const rows = (await this.ds.query(`SELECT id, owner_id, visibility, title, mime_type, text_status, text_error, extracted_text, text_pages FROM documents WHERE id = $1`, [id])) as {
      id: number;
      owner_id: number;
      visibility: 'user' | 'global';
      title: string;
      mime_type: string;
      text_status: string;
      text_error: string | null;
      extracted_text: string | null;
      text_pages: { page: number; text: string }[] | null;
    }[];
    const r = rows[0];
    if (!r) return null;
    return {
      id: r.id,
      ownerId: r.owner_id,
      visibility: r.visibility,
      title: r.title,
      mimeType: r.mime_type,
      textStatus: r.text_status,
      textError: r.text_error,
      text: r.extracted_text,
      pages: r.text_pages,
    };
  }
}
