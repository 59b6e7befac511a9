import { MigrationInterface, QueryRunner } from 'typeorm';

export class CreateCollections1764000000021 implements MigrationInterface {
  name = 'CreateCollections1764000000021';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE collections (
        id serial PRIMARY KEY,
        name varchar(255) NOT NULL,
        description text NULL,
        owner_id integer NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query('CREATE INDEX collections_owner_created_idx ON collections (owner_id, created_at DESC, id DESC)');
    await q.query(`
      CREATE TABLE collection_documents (
        collection_id integer NOT NULL REFERENCES collections (id) ON DELETE CASCADE,
        document_id integer NOT NULL REFERENCES documents (id) ON DELETE CASCADE,
        added_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (collection_id, document_id)
      )`);
    await q.query('CREATE INDEX collection_documents_document_idx ON collection_documents (document_id)');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE collection_documents');
    await q.query('DROP TABLE collections');
  }
}
