import type { TestApp, TestUser } from '../setup/test-app';

let counter = 0;

/**
 * An MCP server row for `user`, inserted directly: these tests need servers to
 * point at, not the MCP HTTP API (tested on its own).
 */
export async function createMcpServer(t: TestApp, user: TestUser, name = `server-${++counter}`): Promise<number> {
  const rows: { id: number }[] = await t.dataSource.query(
    'INSERT INTO mcp_servers (user_id, name, transport, config) VALUES ($1, $2, $3, $4) RETURNING id',
    [user.id, name, 'streamable_http', JSON.stringify({ url: 'https://mcp.example.com/mcp' })],
  );
  return rows[0].id;
}
