import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Memory entries with full-text search. `search` is a generated tsvector of the
 * content with the 'simple' configuration (no language-specific stemming or
 * stop words: memory is multilingual, and 'simple' ranks identically on every
 * PostgreSQL version, the embedded one included), indexed with GIN.
 */
export class Memory1763800005000 implements MigrationInterface {
  name = 'Memory1763800005000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE memory_entries (
        id uuid PRIMARY KEY,
        user_id integer NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        agent_id uuid REFERENCES agents (id) ON DELETE CASCADE,
        content text NOT NULL,
        tags text[] NOT NULL DEFAULT '{}',
        metadata jsonb NOT NULL DEFAULT '{}'::jsonb,
        search tsvector GENERATED ALWAYS AS (to_tsvector('simple'::regconfig, content)) STORED,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX memory_entries_search_idx ON memory_entries USING gin (search)`);
    await q.query(`CREATE INDEX memory_entries_tags_idx ON memory_entries USING gin (tags)`);
    await q.query(`CREATE INDEX memory_entries_user_id_created_at_idx ON memory_entries (user_id, created_at DESC, id)`);
    await q.query(`CREATE INDEX memory_entries_agent_id_idx ON memory_entries (agent_id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE memory_entries`);
  }
}
