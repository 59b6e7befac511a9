import { openDocumentsKit, upload, type DocumentsKit, type UploadBody } from './test-support/documents-kit';

let kit: DocumentsKit;

beforeAll(async () => {
  kit = await openDocumentsKit();
});

afterAll(async () => {
  await kit?.close();
});

describe('stored text compression', () => {
  it('compresses a large extracted text with lz4 where the server has it, and reads it back whole', async () => {
    const line = 'A line of a long plain-text document, repeated so that PostgreSQL compresses it.\n';
    const text = line.repeat(Math.ceil((100 * 1024) / line.length));
    const res = await upload(kit.app, kit.alice, { content: Buffer.from(text), filename: 'long.txt', contentType: 'text/plain', fields: { title: 'Long text' } });
    expect(res.status).toBe(201);
    const id = (res.body as UploadBody).id;
    const available = ((await kit.bed.database.query("SELECT 1 FROM pg_settings WHERE name = 'default_toast_compression' AND 'lz4' = ANY (enumvals)")) as unknown[]).length > 0;
    const rows = (await kit.bed.database.query('SELECT pg_column_compression(extracted_text) AS method, extracted_text = $2 AS same FROM documents WHERE id = $1', [id, text])) as {
      method: string | null;
      same: boolean;
    }[];
    expect(rows[0]).toEqual({ method: available ? 'lz4' : 'pglz', same: true });
  });
});
