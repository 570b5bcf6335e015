import { MigrationInterface, QueryRunner } from 'typeorm';

/** Saved MCP servers, owned by a user; name unique per user; at most one default per user. */
export class McpServers1763800003000 implements MigrationInterface {
  name = 'McpServers1763800003000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE mcp_servers (
        id serial PRIMARY KEY,
        user_id integer NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        name text NOT NULL,
        transport text NOT NULL CHECK (transport IN ('stdio', 'sse', 'streamable_http')),
        description text NOT NULL DEFAULT '',
        config jsonb NOT NULL DEFAULT '{}'::jsonb,
        is_active boolean NOT NULL DEFAULT true,
        is_default boolean NOT NULL DEFAULT false,
        connected_account text,
        app_id text,
        provider text,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE UNIQUE INDEX mcp_servers_user_id_name_key ON mcp_servers (user_id, name)`);
    await q.query(`CREATE UNIQUE INDEX mcp_servers_one_default_per_user ON mcp_servers (user_id) WHERE is_default`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE mcp_servers`);
  }
}
