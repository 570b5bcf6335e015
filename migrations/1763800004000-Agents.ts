import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Agents, owned by a user. Their MCP servers sit in a join table with foreign
 * keys, so deleting a server (or the agent) removes the link instead of leaving
 * a dangling id behind; `position` keeps the order the client sent.
 */
export class Agents1763800004000 implements MigrationInterface {
  name = 'Agents1763800004000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE agents (
        id uuid PRIMARY KEY,
        user_id integer NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        name text NOT NULL,
        description text NOT NULL DEFAULT '',
        instructions text NOT NULL DEFAULT '',
        model text NOT NULL DEFAULT '',
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX agents_user_id_created_at_idx ON agents (user_id, created_at, id)`);
    await q.query(`
      CREATE TABLE agent_mcp_servers (
        agent_id uuid NOT NULL REFERENCES agents (id) ON DELETE CASCADE,
        mcp_server_id integer NOT NULL REFERENCES mcp_servers (id) ON DELETE CASCADE,
        position integer NOT NULL,
        PRIMARY KEY (agent_id, mcp_server_id)
      )`);
    await q.query(`CREATE INDEX agent_mcp_servers_mcp_server_id_idx ON agent_mcp_servers (mcp_server_id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE agent_mcp_servers`);
    await q.query(`DROP TABLE agents`);
  }
}
