import request from 'supertest';
import { validateConfig } from '../../src/mcp/mcp-config';
import { createTestApp, TestApp } from '../setup/test-app';

const APP_KEYS = ['id', 'name', 'description', 'category', 'provider', 'transport', 'transport_display', 'config_template', 'required_config', 'auth_type', 'homepage'];

describe('MCP app library', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  const get = (url: string) => request(t.http).get(url).set('Authorization', t.admin.auth);

  it('lists at least 25 apps, each with exactly the contract fields and a valid config template', async () => {
    const res = await get('/api/mcp/apps?limit=200');
    expect(res.status).toBe(200);
    expect(res.body.length).toBeGreaterThanOrEqual(25);
    expect(res.headers['x-total-count']).toBe(String(res.body.length));
    const display = { stdio: 'Standard I/O', sse: 'Server-Sent Events', streamable_http: 'Streamable HTTP' } as const;
    for (const app of res.body) {
      expect(Object.keys(app).sort()).toEqual([...APP_KEYS].sort());
      expect(app.transport_display).toBe(display[app.transport as keyof typeof display]);
      expect(['none', 'api_key', 'oauth']).toContain(app.auth_type);
      expect(validateConfig(app.transport, app.config_template)).toEqual([]);
      expect(app.homepage).toMatch(/^https:\/\//);
      expect(Array.isArray(app.required_config)).toBe(true);
    }
    const ids = res.body.map((a: { id: string }) => a.id);
    for (const id of ['filesystem', 'fetch', 'git', 'memory', 'time', 'sequential-thinking', 'everything', 'github', 'slack', 'notion', 'linear', 'sentry', 'stripe', 'postgres']) {
      expect(ids).toContain(id);
    }
  });

  it('returns one app with its accurate template, and 404 for an unknown id', async () => {
    const fs = await get('/api/mcp/apps/filesystem');
    expect(fs.status).toBe(200);
    expect(fs.body).toEqual({
      id: 'filesystem',
      name: 'Filesystem',
      description: expect.any(String),
      category: 'files',
      provider: 'Model Context Protocol',
      transport: 'stdio',
      transport_display: 'Standard I/O',
      config_template: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '${ALLOWED_DIRECTORY}'] },
      required_config: ['ALLOWED_DIRECTORY'],
      auth_type: 'none',
      homepage: 'https://github.com/modelcontextprotocol/servers/tree/main/src/filesystem',
    });
    expect((await get('/api/mcp/apps/linear')).body).toMatchObject({ transport: 'sse', config_template: { url: 'https://mcp.linear.app/sse' }, auth_type: 'oauth' });
    expect((await get('/api/mcp/apps/time')).body.config_template).toEqual({ command: 'uvx', args: ['mcp-server-time'] });
    for (const id of ['nope', 'a%00b']) {
      const missing = await get(`/api/mcp/apps/${id}`);
      expect(missing.status).toBe(404);
      expect(missing.body).toEqual({ detail: 'MCP app not found' });
    }
    expect((await get('/api/mcp/apps?search=a%00b')).status).toBe(422);
  });

  it('searches id, name and description case-insensitively, with q as an alias', async () => {
    const byName = await get('/api/mcp/apps?search=GITHUB');
    expect(byName.body.map((a: { id: string }) => a.id).sort()).toEqual(['deepwiki', 'github', 'github-docker']);
    expect(byName.headers['x-total-count']).toBe('3');
    const alias = await get('/api/mcp/apps?q=github');
    expect(alias.body).toEqual(byName.body);
    const byDescription = await get('/api/mcp/apps?search=knowledge%20graph');
    expect(byDescription.body.map((a: { id: string }) => a.id)).toEqual(['memory']);
    const byId = await get('/api/mcp/apps?search=sequential-thinking');
    expect(byId.body.map((a: { id: string }) => a.id)).toEqual(['sequential-thinking']);
    const literal = await get('/api/mcp/apps?search=%25');
    expect(literal.body).toEqual([]);
  });

  it('filters by category, provider and transport', async () => {
    const databases = await get('/api/mcp/apps?category=DATABASES&limit=200');
    expect(databases.body.length).toBeGreaterThanOrEqual(3);
    expect(databases.body.every((a: { category: string }) => a.category === 'databases')).toBe(true);
    const cloudflare = await get('/api/mcp/apps?provider=cloudflare');
    expect(cloudflare.body.map((a: { id: string }) => a.id).sort()).toEqual(['cloudflare-bindings', 'cloudflare-docs']);
    const sse = await get('/api/mcp/apps?transport=sse&limit=200');
    expect(sse.body.length).toBeGreaterThan(0);
    expect(sse.body.every((a: { transport: string }) => a.transport === 'sse')).toBe(true);
    const combined = await get('/api/mcp/apps?transport=stdio&provider=Model%20Context%20Protocol&search=time');
    expect(combined.body.map((a: { id: string }) => a.id)).toEqual(['time']);
    const bad = await get('/api/mcp/apps?transport=websocket');
    expect(bad.status).toBe(422);
    expect(bad.body).toEqual({ detail: [{ loc: ['query', 'transport'], msg: 'transport must be one of stdio, sse, streamable_http', type: 'enum' }] });
  });

  it('pages with limit and offset, in a stable order', async () => {
    const all = await get('/api/mcp/apps?limit=200');
    const page = await get('/api/mcp/apps?limit=5&offset=5');
    expect(page.body).toEqual(all.body.slice(5, 10));
    expect(page.headers['x-total-count']).toBe(String(all.body.length));
    expect((await get('/api/mcp/apps')).body).toHaveLength(Math.min(50, all.body.length));
    expect((await get('/api/mcp/apps?limit=0')).status).toBe(422);
  });

  it('shows apps operators add to the table', async () => {
    await t.dataSource.query(
      `INSERT INTO mcp_apps (id, name, description, category, provider, transport, config_template, required_config, auth_type, homepage)
       VALUES ('acme-internal', 'Acme Internal', 'Our own tools', 'internal', 'Acme', 'streamable_http', '{"url":"https://mcp.acme.test/mcp"}', '[]', 'none', NULL)`,
    );
    const res = await get('/api/mcp/apps/acme-internal');
    expect(res.body).toMatchObject({ id: 'acme-internal', transport_display: 'Streamable HTTP', homepage: null });
  });

  it('answers 401 without a token', async () => {
    expect((await request(t.http).get('/api/mcp/apps')).status).toBe(401);
  });

  it('documents every MCP operation in the OpenAPI document, with bearer security and transport as an enum', async () => {
    const res = await request(t.http).get('/docs-json');
    expect(res.status).toBe(200);
    const doc = res.body;
    const ops: [string, string][] = [
      ['/api/mcp/servers', 'post'],
      ['/api/mcp/servers', 'get'],
      ['/api/mcp/servers/{server_id}', 'get'],
      ['/api/mcp/servers/{server_id}', 'patch'],
      ['/api/mcp/servers/{server_id}', 'delete'],
      ['/api/mcp/test-connection', 'post'],
      ['/api/mcp/apps', 'get'],
      ['/api/mcp/apps/{app_id}', 'get'],
    ];
    for (const [path, method] of ops) {
      const op = doc.paths[path]?.[method];
      expect(op).toBeDefined();
      expect(op.security).toEqual([{ bearer: [] }]);
      expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['401']));
    }
    const schemas = doc.components.schemas;
    for (const name of ['CreateMcpServerDto', 'UpdateMcpServerDto', 'TestConnectionDto', 'McpServerView', 'McpAppView']) {
      expect(schemas[name].properties.transport.enum).toEqual(['stdio', 'sse', 'streamable_http']);
    }
    expect(Object.keys(schemas.McpServerView.properties).sort()).toEqual(
      ['id', 'user_id', 'name', 'transport', 'description', 'config', 'is_active', 'is_default', 'transport_display', 'created_at', 'updated_at', 'connected_account', 'app_id', 'provider'].sort(),
    );
    expect(doc.paths['/api/mcp/test-connection'].post.responses['200'].content['application/json'].examples.success).toBeDefined();
  });
});
