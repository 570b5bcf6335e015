// The baseline: a bare Node `http` server doing, per request, the work the
// service's authenticated reads do at their core, with nothing else
// (no framework, no ORM, no middleware):
//   SHA-256 of the bearer token → the token lookup of src/auth/tokens.service.ts
//   → the row read by id and owner → JSON.stringify.
// GET /api/health/ready answers 200 after a `SELECT 1`.
//
// Environment: PORT, HOST, and either DATABASE_URL (+ DATABASE_POOL_SIZE,
// default 10, like the service) or PGLITE_DIR (start-up baseline on the
// embedded database: PGlite opened in that folder, no socket server).
import { createHash } from 'node:crypto';
import http from 'node:http';

const BEARER = /^Bearer +([A-Za-z0-9._~+/=-]+) *$/i;
const MCP_SERVER = /^\/api\/mcp\/servers\/(\d{1,10})$/;
const CANVAS = /^\/api\/workforces\/([0-9a-fA-F-]{36})\/canvas$/;

const AUTH_SQL = `SELECT t.id AS token_id, t.last_used_at, u.id, u.email, u.role, u.team_id
   FROM api_tokens t JOIN users u ON u.id = t.user_id
  WHERE t.token_hash = $1 AND t.revoked_at IS NULL AND (t.expires_at IS NULL OR t.expires_at > now())`;
const MCP_SQL = `SELECT id, user_id, name, transport, description, config, is_active, is_default,
       connected_account, app_id, provider, created_at, updated_at
  FROM mcp_servers WHERE id = $1 AND user_id = $2`;
const CANVAS_SQL = `SELECT id, revision, nodes, edges, viewport, canvas_updated_at FROM workforces WHERE id = $1 AND user_id = $2`;

let query;
if (process.env.PGLITE_DIR) {
  const { PGlite } = await import('@electric-sql/pglite');
  const db = await PGlite.create({ dataDir: process.env.PGLITE_DIR });
  query = (sql, params) => db.query(sql, params);
} else {
  const { default: pg } = await import('pg');
  const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: Number(process.env.DATABASE_POOL_SIZE ?? 10) });
  query = (sql, params) => pool.query(sql, params);
}
await query('SELECT 1');

function send(res, status, body) {
  const json = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(json) });
  res.end(json);
}

async function handle(req, res) {
  const url = req.url ?? '/';
  if (req.method !== 'GET') return send(res, 405, { detail: 'Method Not Allowed' });
  if (url === '/api/health/ready') {
    await query('SELECT 1');
    return send(res, 200, { status: 'ok' });
  }
  const mcp = MCP_SERVER.exec(url);
  const canvas = mcp ? null : CANVAS.exec(url);
  if (!mcp && !canvas) return send(res, 404, { detail: 'Not Found' });
  const header = req.headers.authorization;
  const token = typeof header === 'string' ? BEARER.exec(header)?.[1] : undefined;
  if (!token) return send(res, 401, { detail: 'Not authenticated' });
  const hash = createHash('sha256').update(token, 'utf8').digest('hex');
  const user = (await query(AUTH_SQL, [hash])).rows[0];
  if (!user) return send(res, 401, { detail: 'Invalid or expired token' });
  if (mcp) {
    const row = (await query(MCP_SQL, [Number(mcp[1]), user.id])).rows[0];
    if (!row) return send(res, 404, { detail: 'MCP server not found' });
    return send(res, 200, row);
  }
  const row = (await query(CANVAS_SQL, [canvas[1].toLowerCase(), user.id])).rows[0];
  if (!row) return send(res, 404, { detail: 'Workforce not found' });
  return send(res, 200, {
    workforce_id: row.id,
    revision: row.revision,
    nodes: row.nodes,
    edges: row.edges,
    viewport: row.viewport,
    updated_at: row.canvas_updated_at.toISOString(),
  });
}

const server = http.createServer((req, res) => {
  handle(req, res).catch((err) => {
    process.stderr.write(`${err.stack ?? err}\n`);
    if (!res.headersSent) send(res, 500, { detail: 'Internal Server Error' });
  });
});
server.keepAliveTimeout = 5000;
server.listen(Number(process.env.PORT ?? 0), process.env.HOST ?? '127.0.0.1');
process.once('SIGTERM', () => {
  server.close(() => process.exit(0));
  server.closeAllConnections();
});
