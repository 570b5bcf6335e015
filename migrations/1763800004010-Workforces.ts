import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Workforces with their draft canvas (revision-counted for lost-update
 * protection) and their immutable published versions. The unique
 * (workforce_id, version) and (workforce_id, revision) constraints make a
 * second version of one draft impossible even if two publishes raced past the
 * row lock.
 */
export class Workforces1763800004010 implements MigrationInterface {
  name = 'Workforces1763800004010';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE workforces (
        id uuid PRIMARY KEY,
        user_id integer NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        name text NOT NULL,
        description text NOT NULL DEFAULT '',
        revision integer NOT NULL DEFAULT 0 CHECK (revision >= 0),
        nodes jsonb NOT NULL DEFAULT '[]'::jsonb,
        edges jsonb NOT NULL DEFAULT '[]'::jsonb,
        viewport jsonb NOT NULL DEFAULT '{"x":0,"y":0,"zoom":1}'::jsonb,
        canvas_updated_at timestamptz NOT NULL DEFAULT now(),
        version integer NOT NULL DEFAULT 0 CHECK (version >= 0),
        published_revision integer,
        published_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX workforces_user_id_created_at_idx ON workforces (user_id, created_at, id)`);
    // "Which drafts use agent X?" (agent deletion): jsonb containment on the nodes array.
    await q.query(`CREATE INDEX workforces_nodes_idx ON workforces USING gin (nodes jsonb_path_ops)`);
    await q.query(`
      CREATE TABLE workforce_versions (
        id bigserial PRIMARY KEY,
        workforce_id uuid NOT NULL REFERENCES workforces (id) ON DELETE CASCADE,
        version integer NOT NULL CHECK (version >= 1),
        revision integer NOT NULL,
        canvas jsonb NOT NULL,
        agents jsonb NOT NULL,
        published_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT workforce_versions_workforce_id_version_key UNIQUE (workforce_id, version),
        CONSTRAINT workforce_versions_workforce_id_revision_key UNIQUE (workforce_id, revision)
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE workforce_versions`);
    await q.query(`DROP TABLE workforces`);
  }
}
