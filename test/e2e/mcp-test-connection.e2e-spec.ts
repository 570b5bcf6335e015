import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import request from 'supertest';
import { closedPort, Running, startPlainServer, startSilentServer, startSseServer, startStreamableHttpServer } from '../fixtures/mcp-http-servers';
import { createTestApp, TestApp, TestUser } from '../setup/test-app';

const FIXTURE = path.resolve(__dirname, '../fixtures/mcp-stdio-server.mjs');
const TIMEOUT_MS = 1500;

const post = (t: TestApp, user: TestUser, body: Record<string, unknown>) => request(t.http).post('/api/mcp/test-connection').set('Authorization', user.auth).send(body);

async function usage(t: TestApp, teamId: number): Promise<number> {
  const rows: { n: string }[] = await t.dataSource.query('SELECT usage_mcp_connection_tests AS n FROM teams WHERE id = $1', [teamId]);
  return Number(rows[0].n);
}

const isAlive = (pid: number) => {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  // A zombie (killed, not yet reaped by its new parent) runs nothing.
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
};

const failure = (error: string, extra: Record<string, unknown> = {}) => ({
  success: false,
  message: expect.any(String),
  details: { error, ...extra, elapsed_ms: expect.any(Number) },
});

describe('MCP connection test (private networks allowed, stdio enabled for node)', () => {
  let t: TestApp;
  let streamable: Running;
  let sse: Running;
  let failing: Running;
  let html: Running;
  let silent: Running;

  beforeAll(async () => {
    t = await createTestApp({
      MCP_ALLOW_PRIVATE_NETWORKS: 'true',
      MCP_STDIO_ENABLED: 'true',
      MCP_STDIO_ALLOWED_COMMANDS: 'node,no-such-mcp-command-xyz',
      MCP_TEST_TIMEOUT_MS: String(TIMEOUT_MS),
      PAYMENT_SECRET_KEY: 'sk_test_config_secret_value',
    });
    [streamable, sse, failing, html, silent] = await Promise.all([
      startStreamableHttpServer(),
      startSseServer(),
      startPlainServer(500, 'boom'),
      startPlainServer(200, '<html><body>Not MCP</body></html>'),
      startSilentServer(),
    ]);
  });
  afterAll(async () => {
    await Promise.all([streamable, sse, failing, html, silent].map((s) => s?.close()));
    await t.close();
  });

  it('connects over Streamable HTTP, lists tools and counts one test in usage', async () => {
    const user = await t.createUser();
    const before = await usage(t, user.teamId);
    const res = await post(t, user, { name: 'local', transport: 'streamable_http', config: { url: `${streamable.url}/mcp` } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      success: true,
      message: 'Connected to streamable-fixture 1.2.3',
      details: {
        server_info: { name: 'streamable-fixture', version: '1.2.3' },
        protocol_version: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/),
        capabilities: expect.objectContaining({ tools: expect.any(Object) }),
        tools: [{ name: 'echo', description: 'Echoes its input' }],
        tool_count: 1,
        elapsed_ms: expect.any(Number),
      },
    });
    expect(await usage(t, user.teamId)).toBe(before + 1);
  });

  it('connects over SSE', async () => {
    const res = await post(t, t.admin, { name: 'local sse', transport: 'sse', config: { url: `${sse.url}/sse` } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ success: true, message: 'Connected to sse-fixture 1.2.3', details: { tools: [{ name: 'echo', description: 'Echoes its input' }], tool_count: 1 } });
  });

  it('connects over stdio (admin, allowed command) and the child sees only PATH and the config env', async () => {
    process.env.PAYMENT_SECRET_KEY = 'sk_live_process_secret_value';
    process.env.DATABASE_URL = 'postgres://secret-user:secret-pass@db/prod';
    try {
      const res = await post(t, t.admin, { name: 'stdio', transport: 'stdio', config: { command: 'node', args: [FIXTURE], env: { GREETING: 'hello' } } });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ success: true, message: 'Connected to stdio-fixture 0.3.0', details: { server_info: { name: 'stdio-fixture', version: '0.3.0' }, tool_count: 2 } });
      const reported = JSON.parse(res.body.details.tools.find((tool: { name: string }) => tool.name === 'environment').description) as Record<string, string>;
      expect(Object.keys(reported).sort()).toEqual(['GREETING', 'PATH']);
      expect(reported.GREETING).toBe('hello');
      const text = JSON.stringify(res.body);
      for (const secret of ['sk_live_process_secret_value', 'secret-pass', 'sk_test_config_secret_value', 'apt_']) expect(text).not.toContain(secret);
    } finally {
      delete process.env.PAYMENT_SECRET_KEY;
      delete process.env.DATABASE_URL;
    }
  });

  it.each([['streamable_http', '/mcp'], ['sse', '/sse']])('answers connection_refused for a closed port (%s)', async (transport, suffix) => {
    const port = await closedPort();
    const res = await post(t, t.admin, { name: 'closed', transport, config: { url: `http://127.0.0.1:${port}${suffix}` } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(failure('connection_refused'));
  });

  it.each([['streamable_http'], ['sse']])('answers http_error with the status for an HTTP 500 (%s)', async (transport) => {
    const res = await post(t, t.admin, { name: 'broken', transport, config: { url: `${failing.url}/mcp` } });
    expect(res.body).toEqual(failure('http_error', { status: 500 }));
    expect(res.body.message).toBe('The server answered HTTP 500');
  });

  it.each([['streamable_http'], ['sse']])('answers protocol_error for an HTTP 200 that is not MCP (%s)', async (transport) => {
    const res = await post(t, t.admin, { name: 'web page', transport, config: { url: `${html.url}/` } });
    expect(res.body).toEqual(failure('protocol_error'));
  });

  it('follows a same-origin redirect (each hop through the checked, pinned lookup)', async () => {
    const res = await post(t, t.admin, { name: 'moved', transport: 'streamable_http', config: { url: `${streamable.url}/old` } });
    expect(res.body).toMatchObject({ success: true, message: 'Connected to streamable-fixture 1.2.3' });
  });

  it('does not follow a redirect to another origin', async () => {
    const redirect = await startPlainServer(307, '', { Location: `${streamable.url}/mcp` });
    try {
      const before = streamable.connections();
      const res = await post(t, t.admin, { name: 'elsewhere', transport: 'streamable_http', config: { url: `${redirect.url}/mcp` } });
      expect(res.body).toEqual(failure('http_error', { status: 307 }));
      expect(streamable.connections()).toBe(before);
    } finally {
      await redirect.close();
    }
  });

  it('answers timeout for a server that accepts and never answers, within the hard timeout', async () => {
    const res = await post(t, t.admin, { name: 'silent', transport: 'streamable_http', config: { url: `${silent.url}/mcp` } });
    expect(res.body).toEqual(failure('timeout'));
    expect(res.body.details.elapsed_ms).toBeGreaterThanOrEqual(TIMEOUT_MS - 50);
  });

  it('uses a shorter config timeout_ms', async () => {
    const res = await post(t, t.admin, { name: 'silent', transport: 'sse', config: { url: `${silent.url}/sse`, timeout_ms: 200 } });
    expect(res.body).toEqual(failure('timeout'));
    expect(res.body.details.elapsed_ms).toBeLessThan(TIMEOUT_MS);
  });

  it('answers dns_error for a host that does not resolve', async () => {
    const res = await post(t, t.admin, { name: 'nowhere', transport: 'streamable_http', config: { url: 'http://no-such-host.invalid/mcp' } });
    expect(res.body).toEqual(failure('dns_error'));
  });

  it('answers spawn_error for a command that does not exist', async () => {
    const res = await post(t, t.admin, { name: 'missing', transport: 'stdio', config: { command: 'no-such-mcp-command-xyz' } });
    expect(res.body).toEqual(failure('spawn_error'));
  });

  it('kills the stdio child and its process group on timeout: nothing is left running', async () => {
    const pidFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-pid-')), 'pid');
    const res = await post(t, t.admin, { name: 'hang', transport: 'stdio', config: { command: 'node', args: [FIXTURE, '--hang', pidFile] } });
    expect(res.body).toEqual(failure('timeout'));
    const [child, grandchild] = fs.readFileSync(pidFile, 'utf8').split(' ').map(Number);
    expect(() => process.kill(child, 0)).toThrow();
    expect(isAlive(grandchild)).toBe(false);
  });

  describe('command policy', () => {
    it.each([
      ['a command not on the allow-list', { command: 'npx', args: ['-y', 'some-server'] }],
      ['a path instead of a command name', { command: process.execPath, args: [FIXTURE] }],
      ['NODE_OPTIONS in env', { command: 'node', args: [FIXTURE], env: { NODE_OPTIONS: '--require /tmp/x.js' } }],
      ['LD_PRELOAD in env', { command: 'node', args: [FIXTURE], env: { LD_PRELOAD: '/tmp/x.so' } }],
      ['PATH in env', { command: 'node', args: [FIXTURE], env: { PATH: '/tmp/evil' } }],
    ])('refuses an admin %s with command_not_allowed', async (_label, config) => {
      const res = await post(t, t.admin, { name: 'x', transport: 'stdio', config });
      expect(res.status).toBe(200);
      expect(res.body).toEqual(failure('command_not_allowed'));
    });

    it.each([
      ['npx -c', { command: 'npx', args: ['-c', 'touch /tmp/pwned'] }],
      ['node -e', { command: 'node', args: ['-e', 'require("fs").writeFileSync("/tmp/pwned", "")'] }],
      ['the allowed command with a script', { command: 'node', args: [FIXTURE] }],
    ])('refuses a member running %s without a library app', async (_label, config) => {
      const member = await t.createUser();
      const res = await post(t, member, { name: 'x', transport: 'stdio', config });
      expect(res.body).toEqual(failure('command_not_allowed'));
      expect(res.body.message).toBe('Members may run only a library app over stdio: send its app_id');
    });

    describe('library apps for members', () => {
      beforeAll(async () => {
        const insert = `INSERT INTO mcp_apps (id, name, description, category, provider, transport, config_template, required_config, auth_type)
                        VALUES ($1, $2, 'Test fixture', 'testing', 'Tests', 'stdio', $3::jsonb, $4::jsonb, 'api_key')`;
        await t.dataSource.query(insert, ['fixture', 'Fixture', JSON.stringify({ command: 'node', args: [FIXTURE] }), JSON.stringify(['FIXTURE_TOKEN'])]);
        await t.dataSource.query(insert, ['fixture-loader', 'Fixture with a loader variable', JSON.stringify({ command: 'node', args: [FIXTURE] }), JSON.stringify(['NODE_OPTIONS'])]);
      });

      it("runs the app's own command with the member's required config only", async () => {
        const member = await t.createUser();
        const res = await post(t, member, { name: 'fx', transport: 'stdio', app_id: 'fixture', config: { env: { FIXTURE_TOKEN: 'tok-123' } } });
        expect(res.body).toMatchObject({ success: true, message: 'Connected to stdio-fixture 0.3.0' });
        const reported = JSON.parse(res.body.details.tools.find((tool: { name: string }) => tool.name === 'environment').description) as Record<string, string>;
        expect(reported).toEqual({ PATH: expect.any(String), FIXTURE_TOKEN: 'tok-123' });
      });

      it.each([
        ['other arguments (node -e)', { args: ['-e', 'process.exit(0)'], env: { FIXTURE_TOKEN: 'x' } }],
        ['another command (npx -c)', { command: 'npx', args: ['-c', 'id'], env: { FIXTURE_TOKEN: 'x' } }],
        ['an env variable the app does not declare', { env: { FIXTURE_TOKEN: 'x', EXTRA: 'y' } }],
        ['a working directory', { cwd: '/tmp', env: { FIXTURE_TOKEN: 'x' } }],
      ])('refuses %s with command_not_allowed', async (_label, config) => {
        const member = await t.createUser();
        const res = await post(t, member, { name: 'fx', transport: 'stdio', app_id: 'fixture', config });
        expect(res.body).toEqual(failure('command_not_allowed'));
      });

      it('refuses a loader variable even when an app declares it', async () => {
        const member = await t.createUser();
        const res = await post(t, member, { name: 'fx', transport: 'stdio', app_id: 'fixture-loader', config: { env: { NODE_OPTIONS: '--require /tmp/x.js' } } });
        expect(res.body).toEqual(failure('command_not_allowed'));
        expect(res.body.message).toContain('NODE_OPTIONS');
      });

      it("refuses a library app whose command is not on the operator's allow-list", async () => {
        const member = await t.createUser();
        const res = await post(t, member, { name: 'time', app_id: 'time' });
        expect(res.body).toEqual(failure('command_not_allowed'));
        expect(res.body.message).toBe('The command uvx is not allowed (MCP_STDIO_ALLOWED_COMMANDS)');
      });

      it('answers 422 when a required config value is missing, without counting usage', async () => {
        const member = await t.createUser();
        const res = await post(t, member, { name: 'fx', app_id: 'fixture' });
        expect(res.status).toBe(422);
        expect(res.body).toEqual({ detail: [{ loc: ['body', 'config', 'env', 'FIXTURE_TOKEN'], msg: 'Field required by the library app fixture', type: 'missing' }] });
        expect(await usage(t, member.teamId)).toBe(0);
      });
    });
  });

  it('answers 429 with Retry-After when the user has MCP_MAX_TESTS_IN_FLIGHT tests running', async () => {
    const user = await t.createUser();
    const body = { name: 'silent', transport: 'streamable_http', config: { url: `${silent.url}/mcp` } };
    // Started one after another: each holds its slot while connected to the silent server.
    const running: Promise<request.Response>[] = [];
    for (let i = 1; i <= 3; i++) {
      const accepted = silent.connections();
      running.push(post(t, user, body).then((r) => r));
      for (let j = 0; j < 200 && silent.connections() === accepted; j++) await new Promise((r) => setTimeout(r, 10));
      expect(silent.connections()).toBe(accepted + 1);
    }
    const refused = await post(t, user, body);
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({ detail: 'Too many requests' });
    expect(refused.headers['retry-after']).toBe('2');
    const other = await t.createUser();
    const allowed = await post(t, other, { name: 'ok', transport: 'streamable_http', config: { url: `${streamable.url}/mcp` } });
    expect(allowed.body.success).toBe(true);
    for (const r of await Promise.all(running)) expect(r.body).toEqual(failure('timeout'));
    expect(await usage(t, user.teamId)).toBe(3);
    const [{ n }] = await t.dataSource.query('SELECT count(*)::int AS n FROM mcp_test_slots WHERE user_id = $1', [user.id]);
    expect(n).toBe(0);
  });

  it('answers 401 without a token', async () => {
    const res = await request(t.http).post('/api/mcp/test-connection').send({ name: 'x', transport: 'sse', config: { url: `${sse.url}/sse` } });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ detail: 'Not authenticated' });
  });

  it('validates like a create: 422 with every problem and no usage counted', async () => {
    const user = await t.createUser();
    const res = await post(t, user, { transport: 'websocket', config: { url: 'x' }, extra: 1 });
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual(
      expect.arrayContaining([
        { loc: ['body', 'extra'], msg: 'Extra inputs are not permitted', type: 'extra_forbidden' },
        { loc: ['body', 'name'], msg: 'Field required', type: 'missing' },
        { loc: ['body', 'transport'], msg: 'transport must be one of stdio, sse, streamable_http', type: 'enum' },
      ]),
    );
    const bad = await post(t, user, { name: 'x', transport: 'sse', config: { url: 'ftp://example.com/', command: 'node' } });
    expect(bad.body).toEqual({
      detail: [
        { loc: ['body', 'config', 'command'], msg: 'Extra inputs are not permitted', type: 'extra_forbidden' },
        { loc: ['body', 'config', 'url'], msg: "URL scheme should be 'http' or 'https'", type: 'value_error' },
      ],
    });
    expect(await usage(t, user.teamId)).toBe(0);
  });
});

describe('MCP connection test with the default safety settings', () => {
  let t: TestApp;
  let streamable: Running;

  beforeAll(async () => {
    t = await createTestApp({ PLAN_LIMITS: '{"Free":{"mcp_connection_tests":2}}' });
    streamable = await startStreamableHttpServer();
  });
  afterAll(async () => {
    await streamable?.close();
    await t.close();
  });

  it.each([
    ['loopback literal (a real server listens there)', () => `${streamable.url}/mcp`],
    ['cloud metadata address', () => 'http://169.254.169.254/latest/meta-data/'],
    ['private address', () => 'http://10.0.0.1/mcp'],
    ['IPv6 loopback', () => 'http://[::1]:8080/mcp'],
    ['IPv6 metadata address (AWS)', () => 'http://[fd00:ec2::254]/mcp'],
    ['IPv4-mapped IPv6 loopback', () => 'http://[::ffff:127.0.0.1]/mcp'],
    ['name that resolves to loopback', () => `http://localhost:${streamable.port}/mcp`],
  ])('refuses a %s with blocked_address', async (_label, url) => {
    const user = await t.createUser();
    const res = await post(t, user, { name: 'x', transport: 'streamable_http', config: { url: url() } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(failure('blocked_address'));
    expect(res.body.message).toContain('MCP_ALLOW_PRIVATE_NETWORKS');
  });

  it('answers stdio_disabled for everyone when stdio is off', async () => {
    const member = await t.createUser();
    for (const user of [t.admin, member]) {
      const res = await post(t, user, { name: 'x', transport: 'stdio', config: { command: 'node', args: ['-e', '1'] } });
      expect(res.body).toEqual(failure('stdio_disabled'));
    }
  });

  it('answers 402 past the plan quota, with used as it was', async () => {
    const user = await t.createUser();
    const body = { name: 'x', transport: 'sse', config: { url: 'http://169.254.169.254/' } };
    expect((await post(t, user, body)).status).toBe(200);
    expect((await post(t, user, body)).status).toBe(200);
    const refused = await post(t, user, body);
    expect(refused.status).toBe(402);
    expect(refused.body).toEqual({ detail: expect.any(String), quota: 'mcp_connection_tests', limit: 2, used: 2 });
    expect(await usage(t, user.teamId)).toBe(2);
  });
});
