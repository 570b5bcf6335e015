import request from 'supertest';
import { createTestApp, TestApp, TestUser } from '../setup/test-app';

const SERVER_KEYS = [
  'id', 'user_id', 'name', 'transport', 'description', 'config', 'is_active', 'is_default',
  'transport_display', 'created_at', 'updated_at', 'connected_account', 'app_id', 'provider',
];

describe('MCP servers', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  const create = (user: TestUser, body: Record<string, unknown>) => request(t.http).post('/api/mcp/servers').set('Authorization', user.auth).send(body);
  const storedConfig = async (id: number) => ((await t.dataSource.query('SELECT config FROM mcp_servers WHERE id = $1', [id])) as { config: Record<string, unknown> }[])[0]?.config;

  it('creates a server: 201, Location and exactly the 14 fields', async () => {
    const user = await t.createUser();
    const res = await create(user, { name: 'Docs', transport: 'streamable_http', description: 'Team docs', config: { url: 'https://mcp.example.com/mcp', timeout_ms: 5000 } });
    expect(res.status).toBe(201);
    expect(res.headers.location).toBe(`/api/mcp/servers/${res.body.id}`);
    expect(Object.keys(res.body).sort()).toEqual([...SERVER_KEYS].sort());
    expect(res.body).toEqual({
      id: expect.any(Number),
      user_id: user.id,
      name: 'Docs',
      transport: 'streamable_http',
      description: 'Team docs',
      config: { url: 'https://mcp.example.com/mcp', timeout_ms: 5000 },
      is_active: true,
      is_default: false,
      transport_display: 'Streamable HTTP',
      created_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
      updated_at: expect.any(String),
      connected_account: null,
      app_id: null,
      provider: null,
    });
    const got = await request(t.http).get(`/api/mcp/servers/${res.body.id}`).set('Authorization', user.auth);
    expect(got.status).toBe(200);
    expect(got.body).toEqual(res.body);
  });

  it.each([
    ['stdio', 'Standard I/O', { command: 'npx', args: ['-y', '@modelcontextprotocol/server-memory'] }],
    ['sse', 'Server-Sent Events', { url: 'https://mcp.linear.app/sse' }],
  ])('shows transport_display for %s', async (transport, display, config) => {
    const user = await t.createUser();
    const res = await create(user, { name: 'x', transport, config });
    expect(res.status).toBe(201);
    expect(res.body.transport_display).toBe(display);
  });

  it('takes transport, config, description and provider from a library app', async () => {
    const user = await t.createUser();
    const res = await create(user, { app_id: 'notion' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      name: 'Notion',
      transport: 'streamable_http',
      transport_display: 'Streamable HTTP',
      config: { url: 'https://mcp.notion.com/mcp' },
      app_id: 'notion',
      provider: 'Notion',
      description: expect.stringContaining('Notion'),
    });
  });

  it("lays the caller's config over a library app's template and masks its secrets", async () => {
    const user = await t.createUser();
    const res = await create(user, { app_id: 'brave-search', name: 'Search', config: { env: { BRAVE_API_KEY: 'BSA-real-key' } } });
    expect(res.status).toBe(201);
    expect(res.body.config).toEqual({ command: 'npx', args: ['-y', '@brave/brave-search-mcp-server'], env: { BRAVE_API_KEY: '********' } });
    expect(await storedConfig(res.body.id)).toEqual({ command: 'npx', args: ['-y', '@brave/brave-search-mcp-server'], env: { BRAVE_API_KEY: 'BSA-real-key' } });
  });

  it('answers 422 for an unknown app_id', async () => {
    const user = await t.createUser();
    const res = await create(user, { app_id: 'no-such-app' });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ detail: [{ loc: ['body', 'app_id'], msg: 'MCP app not found', type: 'value_error' }] });
  });

  it('answers 409 for a name the user already has; another user may use it', async () => {
    const a = await t.createUser();
    const b = await t.createUser();
    const body = { name: 'Same', transport: 'sse', config: { url: 'https://example.com/sse' } };
    expect((await create(a, body)).status).toBe(201);
    const dup = await create(a, body);
    expect(dup.status).toBe(409);
    expect(dup.body).toEqual({ detail: 'An MCP server named "Same" already exists' });
    expect((await create(b, body)).status).toBe(201);
    const other = await create(a, { ...body, name: 'Other' });
    const rename = await request(t.http).patch(`/api/mcp/servers/${other.body.id}`).set('Authorization', a.auth).send({ name: 'Same' });
    expect(rename.status).toBe(409);
  });

  it('masks secret header and env values, keeps others, and stores the real values', async () => {
    const user = await t.createUser();
    const http = await create(user, {
      name: 'h',
      transport: 'streamable_http',
      config: { url: 'https://example.com/mcp', headers: { Authorization: 'Bearer abc', 'X-Api-Key': 'k1', 'X-Session-Token': 't1', Accept: 'application/json' } },
    });
    expect(http.body.config.headers).toEqual({ Authorization: '********', 'X-Api-Key': '********', 'X-Session-Token': '********', Accept: 'application/json' });
    const stdio = await create(user, {
      name: 's',
      transport: 'stdio',
      config: { command: 'npx', env: { GITHUB_TOKEN: 'ghp_x', DB_PASSWORD: 'pw', client_secret: 'cs', LOG_LEVEL: 'debug' } },
    });
    expect(stdio.body.config.env).toEqual({ GITHUB_TOKEN: '********', DB_PASSWORD: '********', client_secret: '********', LOG_LEVEL: 'debug' });
    expect((await storedConfig(stdio.body.id)).env).toEqual({ GITHUB_TOKEN: 'ghp_x', DB_PASSWORD: 'pw', client_secret: 'cs', LOG_LEVEL: 'debug' });
    const list = await request(t.http).get('/api/mcp/servers').set('Authorization', user.auth);
    expect(JSON.stringify(list.body)).not.toMatch(/abc|k1|ghp_x|"pw"|"cs"/);
  });

  it('keeps a stored secret when the mask is sent back, replaces it when a value is sent', async () => {
    const user = await t.createUser();
    const created = await create(user, { name: 'm', transport: 'sse', config: { url: 'https://example.com/sse', headers: { Authorization: 'Bearer old', 'X-Trace': 'a' } } });
    const url = `/api/mcp/servers/${created.body.id}`;
    const same = await request(t.http).patch(url).set('Authorization', user.auth).send({ config: { ...created.body.config, url: 'https://example.com/sse2' } });
    expect(same.status).toBe(200);
    expect(same.body.config).toEqual({ url: 'https://example.com/sse2', headers: { Authorization: '********', 'X-Trace': 'a' } });
    expect(await storedConfig(created.body.id)).toEqual({ url: 'https://example.com/sse2', headers: { Authorization: 'Bearer old', 'X-Trace': 'a' } });
    await request(t.http).patch(url).set('Authorization', user.auth).send({ config: { url: 'https://example.com/sse2', headers: { Authorization: 'Bearer new' } } });
    expect(await storedConfig(created.body.id)).toEqual({ url: 'https://example.com/sse2', headers: { Authorization: 'Bearer new' } });
    const unknown = await request(t.http).patch(url).set('Authorization', user.auth).send({ config: { url: 'https://example.com/sse2', headers: { 'X-Api-Key': '********' } } });
    expect(unknown.status).toBe(422);
    expect(unknown.body.detail).toEqual([{ loc: ['body', 'config', 'headers', 'X-Api-Key'], msg: expect.any(String), type: 'value_error' }]);
    expect(await storedConfig(created.body.id)).toEqual({ url: 'https://example.com/sse2', headers: { Authorization: 'Bearer new' } });
  });

  it('keeps at most one default server per user', async () => {
    const user = await t.createUser();
    const other = await t.createUser();
    const cfg = { transport: 'sse', config: { url: 'https://example.com/sse' } };
    const a = await create(user, { name: 'a', is_default: true, ...cfg });
    const foreign = await create(other, { name: 'a', is_default: true, ...cfg });
    const b = await create(user, { name: 'b', is_default: true, ...cfg });
    expect(b.body.is_default).toBe(true);
    expect((await request(t.http).get(`/api/mcp/servers/${a.body.id}`).set('Authorization', user.auth)).body.is_default).toBe(false);
    const back = await request(t.http).patch(`/api/mcp/servers/${a.body.id}`).set('Authorization', user.auth).send({ is_default: true });
    expect(back.body.is_default).toBe(true);
    const defaults: { id: number }[] = await t.dataSource.query('SELECT id FROM mcp_servers WHERE user_id = $1 AND is_default', [user.id]);
    expect(defaults).toEqual([{ id: a.body.id }]);
    expect((await request(t.http).get(`/api/mcp/servers/${foreign.body.id}`).set('Authorization', other.auth)).body.is_default).toBe(true);
  });

  it('updates fields and updated_at', async () => {
    const user = await t.createUser();
    const created = await create(user, { name: 'u', transport: 'sse', config: { url: 'https://example.com/sse' } });
    const res = await request(t.http)
      .patch(`/api/mcp/servers/${created.body.id}`)
      .set('Authorization', user.auth)
      .send({ name: 'u2', description: 'd', is_active: false, transport: 'streamable_http', config: { url: 'https://example.com/mcp' } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: created.body.id, name: 'u2', description: 'd', is_active: false, transport: 'streamable_http', transport_display: 'Streamable HTTP', config: { url: 'https://example.com/mcp' } });
    expect(Date.parse(res.body.updated_at)).toBeGreaterThanOrEqual(Date.parse(created.body.updated_at));
  });

  it('answers 422 when the transport changes and the stored config does not fit it', async () => {
    const user = await t.createUser();
    const created = await create(user, { name: 'c', transport: 'sse', config: { url: 'https://example.com/sse' } });
    const res = await request(t.http).patch(`/api/mcp/servers/${created.body.id}`).set('Authorization', user.auth).send({ transport: 'stdio' });
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual([
      { loc: ['body', 'config', 'url'], msg: 'Extra inputs are not permitted', type: 'extra_forbidden' },
      { loc: ['body', 'config', 'command'], msg: 'Field required', type: 'missing' },
    ]);
  });

  it('lists only the caller’s servers with limit, offset and X-Total-Count', async () => {
    const user = await t.createUser();
    const other = await t.createUser();
    for (const name of ['one', 'two', 'three']) await create(user, { name, transport: 'sse', config: { url: 'https://example.com/sse' } });
    await create(other, { name: 'theirs', transport: 'sse', config: { url: 'https://example.com/sse' } });
    const all = await request(t.http).get('/api/mcp/servers').set('Authorization', user.auth);
    expect(all.status).toBe(200);
    expect(all.headers['x-total-count']).toBe('3');
    expect(all.body.map((s: { name: string }) => s.name)).toEqual(['one', 'two', 'three']);
    const page = await request(t.http).get('/api/mcp/servers?limit=1&offset=1').set('Authorization', user.auth);
    expect(page.body.map((s: { name: string }) => s.name)).toEqual(['two']);
    expect(page.headers['x-total-count']).toBe('3');
    const tooMany = await request(t.http).get('/api/mcp/servers?limit=201').set('Authorization', user.auth);
    expect(tooMany.status).toBe(422);
    expect(tooMany.body.detail[0]).toMatchObject({ loc: ['query', 'limit'], type: 'value_error' });
  });

  it("answers 404 on every route for another user's server and changes nothing", async () => {
    const owner = await t.createUser();
    const intruder = await t.createUser();
    const created = await create(owner, { name: 'mine', transport: 'sse', config: { url: 'https://example.com/sse' } });
    const url = `/api/mcp/servers/${created.body.id}`;
    for (const res of [
      await request(t.http).get(url).set('Authorization', intruder.auth),
      await request(t.http).patch(url).set('Authorization', intruder.auth).send({ name: 'stolen' }),
      await request(t.http).delete(url).set('Authorization', intruder.auth),
    ]) {
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ detail: 'MCP server not found' });
    }
    const still = await request(t.http).get(url).set('Authorization', owner.auth);
    expect(still.body).toEqual(created.body);
  });

  it('deletes: {id, deleted: true}, then 404', async () => {
    const user = await t.createUser();
    const created = await create(user, { name: 'gone', transport: 'sse', config: { url: 'https://example.com/sse' } });
    const url = `/api/mcp/servers/${created.body.id}`;
    const res = await request(t.http).delete(url).set('Authorization', user.auth);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: created.body.id, deleted: true });
    expect(await t.dataSource.query('SELECT 1 FROM mcp_servers WHERE id = $1', [created.body.id])).toHaveLength(0);
    expect((await request(t.http).delete(url).set('Authorization', user.auth)).status).toBe(404);
  });

  it('answers 422 int_parsing for a server_id that is not an integer', async () => {
    const res = await request(t.http).get('/api/mcp/servers/abc').set('Authorization', t.admin.auth);
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ detail: [{ loc: ['path', 'server_id'], msg: expect.any(String), type: 'int_parsing' }] });
  });

  it('answers 401 without a token', async () => {
    const res = await request(t.http).get('/api/mcp/servers');
    expect(res.status).toBe(401);
  });

  describe('validation', () => {
    const problems = async (body: unknown) => {
      const res = await create(t.admin, body as Record<string, unknown>);
      expect(res.status).toBe(422);
      return res.body.detail as unknown[];
    };

    it('reports a bad transport as enum and a missing config', async () => {
      expect(await problems({ name: 'x', transport: 'websocket' })).toEqual([
        { loc: ['body', 'transport'], msg: 'transport must be one of stdio, sse, streamable_http', type: 'enum' },
        { loc: ['body', 'config'], msg: 'Field required', type: 'missing' },
      ]);
    });

    it('reports every problem of a stdio config with its precise loc, beside the other members', async () => {
      const detail = await problems({
        name: 'x'.repeat(101),
        transport: 'stdio',
        config: { args: ['ok', 5], env: { GOOD: 'v', BAD: 1, '1X': 'v' }, cwd: 'relative', shell: true },
        colour: 'red',
      });
      expect(detail).toEqual(
        expect.arrayContaining([
          { loc: ['body', 'colour'], msg: 'Extra inputs are not permitted', type: 'extra_forbidden' },
          { loc: ['body', 'name'], msg: expect.any(String), type: 'string_too_long' },
          { loc: ['body', 'config', 'shell'], msg: 'Extra inputs are not permitted', type: 'extra_forbidden' },
          { loc: ['body', 'config', 'command'], msg: 'Field required', type: 'missing' },
          { loc: ['body', 'config', 'args', 1], msg: 'Input should be a valid string', type: 'string_type' },
          { loc: ['body', 'config', 'env', 'BAD'], msg: 'Input should be a valid string', type: 'string_type' },
          { loc: ['body', 'config', 'env', '1X'], msg: expect.any(String), type: 'value_error' },
          { loc: ['body', 'config', 'cwd'], msg: 'cwd must be an absolute path', type: 'value_error' },
        ]),
      );
      expect(detail).toHaveLength(8);
    });

    it('reports the problems of an HTTP config', async () => {
      expect(await problems({ name: 'x', transport: 'sse', config: { headers: 'x', timeout_ms: 1.5 } })).toEqual([
        { loc: ['body', 'config', 'url'], msg: 'Field required', type: 'missing' },
        { loc: ['body', 'config', 'headers'], msg: 'Input should be a valid dictionary', type: 'dict_type' },
        { loc: ['body', 'config', 'timeout_ms'], msg: 'Input should be a valid integer', type: 'int_parsing' },
      ]);
      expect(await problems({ name: 'x', transport: 'streamable_http', config: { url: 'not a url', headers: { Host: 'evil', 'X-A': 'a\r\nb' } } })).toEqual([
        { loc: ['body', 'config', 'url'], msg: 'Input should be a valid URL', type: 'value_error' },
        { loc: ['body', 'config', 'headers', 'Host'], msg: 'The Host header cannot be set', type: 'value_error' },
        { loc: ['body', 'config', 'headers', 'X-A'], msg: 'Value must not contain line breaks', type: 'value_error' },
      ]);
      expect(await problems({ name: 'x', transport: 'sse', config: { url: 'file:///etc/passwd' } })).toEqual([
        { loc: ['body', 'config', 'url'], msg: "URL scheme should be 'http' or 'https'", type: 'value_error' },
      ]);
      expect(await problems({ name: 'x', transport: 'sse', config: [] })).toEqual([{ loc: ['body', 'config'], msg: expect.any(String), type: 'dict_type' }]);
    });

    it('refuses NUL characters, which PostgreSQL cannot store, with 422', async () => {
      expect(await problems({ name: 'a\u0000b', transport: 'stdio', config: { command: 'npx', env: { A: 'x\u0000' } } })).toEqual([
        { loc: ['body', 'name'], msg: 'must not contain NUL characters', type: 'value_error' },
        { loc: ['body', 'config', 'env', 'A'], msg: 'Value must not contain NUL characters', type: 'value_error' },
      ]);
    });

    it('answers 422 json_invalid for a body that is not JSON', async () => {
      const res = await request(t.http).post('/api/mcp/servers').set('Authorization', t.admin.auth).set('Content-Type', 'application/json').send('{"name":');
      expect(res.status).toBe(422);
      expect(res.body).toEqual({ detail: [{ loc: ['body'], msg: 'Invalid JSON', type: 'json_invalid' }] });
    });
  });
});
