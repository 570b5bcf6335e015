import { MigrationInterface, QueryRunner } from 'typeorm';

/** Teams (with their billing state and usage counters), users and API tokens. */
export class Foundation1763800000000 implements MigrationInterface {
  name = 'Foundation1763800000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE teams (
        id serial PRIMARY KEY,
        name text NOT NULL,
        plan text NOT NULL DEFAULT 'Free',
        subscription_status text,
        current_period_start timestamptz,
        current_period_end timestamptz,
        cancel_at_period_end boolean NOT NULL DEFAULT false,
        payment_customer_id text,
        payment_subscription_id text,
        last_subscription_event_created bigint,
        usage_storage_bytes bigint NOT NULL DEFAULT 0 CHECK (usage_storage_bytes >= 0),
        usage_files_uploaded bigint NOT NULL DEFAULT 0 CHECK (usage_files_uploaded >= 0),
        usage_mcp_connection_tests bigint NOT NULL DEFAULT 0 CHECK (usage_mcp_connection_tests >= 0),
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX teams_payment_subscription_id_idx ON teams (payment_subscription_id)`);
    await q.query(`CREATE INDEX teams_payment_customer_id_idx ON teams (payment_customer_id)`);
    await q.query(`
      CREATE TABLE users (
        id serial PRIMARY KEY,
        email text NOT NULL,
        role text NOT NULL DEFAULT 'member' CHECK (role IN ('admin', 'member')),
        team_id integer NOT NULL REFERENCES teams (id) ON DELETE RESTRICT,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE UNIQUE INDEX users_email_key ON users (email)`);
    await q.query(`CREATE INDEX users_team_id_idx ON users (team_id)`);
    await q.query(`
      CREATE TABLE api_tokens (
        id serial PRIMARY KEY,
        user_id integer NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        name text NOT NULL,
        token_hash text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        last_used_at timestamptz,
        expires_at timestamptz,
        revoked_at timestamptz
      )`);
    await q.query(`CREATE UNIQUE INDEX api_tokens_token_hash_key ON api_tokens (token_hash)`);
    await q.query(`CREATE INDEX api_tokens_user_id_idx ON api_tokens (user_id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE api_tokens`);
    await q.query(`DROP TABLE users`);
    await q.query(`DROP TABLE teams`);
  }
}
