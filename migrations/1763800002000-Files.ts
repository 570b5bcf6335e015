import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Share uploads. `team_id` is the team charged for the bytes (the billing
 * module recomputes storage with `SELECT sum(size) FROM files WHERE team_id = $1`);
 * the bytes themselves live in the storage driver under `storage_key`.
 */
export class Files1763800002000 implements MigrationInterface {
  name = 'Files1763800002000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE files (
        id uuid PRIMARY KEY,
        user_id integer NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        team_id integer NOT NULL REFERENCES teams (id) ON DELETE RESTRICT,
        name text NOT NULL,
        size bigint NOT NULL CHECK (size >= 0),
        content_type text NOT NULL,
        sha256 char(64) NOT NULL,
        folder text,
        task_id text,
        task_type text,
        message text NOT NULL DEFAULT '',
        storage_key text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX files_user_id_created_at_idx ON files (user_id, created_at DESC)`);
    await q.query(`CREATE INDEX files_user_id_task_id_idx ON files (user_id, task_id)`);
    await q.query(`CREATE INDEX files_user_id_folder_idx ON files (user_id, folder)`);
    await q.query(`CREATE INDEX files_team_id_idx ON files (team_id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE files`);
  }
}
