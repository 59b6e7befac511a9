import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A tenant's Data Shield detectors (spec 4.17 rule 4): L1 patterns, L2 word
 * lists and L3 recognizers in one table by `kind`, and the detector packs
 * each tenant installed, and which agents and chatbots shield their model
 * calls. The tenant is the owning user.
 */
export class CreateDataShieldDetectors1764000000080 implements MigrationInterface {
  name = 'CreateDataShieldDetectors1764000000080';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE data_shield_detectors (
        id serial PRIMARY KEY,
        owner_id integer NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        kind varchar(20) NOT NULL CHECK (kind IN ('pattern', 'word_list', 'recognizer')),
        name varchar(100) NOT NULL,
        entity_type varchar(40) NOT NULL,
        pattern text NULL,
        words jsonb NULL,
        context_words jsonb NULL,
        score real NULL,
        score_threshold real NULL,
        enabled boolean NOT NULL DEFAULT true,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT data_shield_detectors_name_unique UNIQUE (owner_id, kind, name)
      )`);
    await q.query('CREATE INDEX data_shield_detectors_owner_idx ON data_shield_detectors (owner_id, kind, id)');
    await q.query(`
      CREATE TABLE data_shield_packs (
        owner_id integer NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        pack varchar(40) NOT NULL,
        installed_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (owner_id, pack)
      )`);
    // Opt-in shielding of an agent's or a chatbot's model calls (off unless set).
    await q.query(`
      CREATE TABLE data_shield_subject_settings (
        kind varchar(20) NOT NULL CHECK (kind IN ('agent', 'chatbot')),
        subject_id integer NOT NULL,
        owner_id integer NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        enabled boolean NOT NULL DEFAULT false,
        entity_types jsonb NULL,
        updated_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (kind, subject_id)
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE data_shield_subject_settings');
    await q.query('DROP TABLE data_shield_packs');
    await q.query('DROP TABLE data_shield_detectors');
  }
}
