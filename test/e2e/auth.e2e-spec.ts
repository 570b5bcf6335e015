import request from 'supertest';
import { createTestApp, TestApp } from '../setup/test-app';

describe('Authentication and tokens', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('answers 401 "Not authenticated" with WWW-Authenticate when there is no Authorization header', async () => {
    const res = await request(t.http).get('/api/auth/me');
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ detail: 'Not authenticated' });
    expect(res.headers['www-authenticate']).toBe('Bearer');
  });

  it.each([['Basic dXNlcjpwYXNz'], ['Bearer'], ['Bearer '], ['Token abc'], ['bearer a b']])(
    'answers 401 "Not authenticated" for the malformed header %p',
    async (header) => {
      const res = await request(t.http).get('/api/auth/me').set('Authorization', header);
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ detail: 'Not authenticated' });
      expect(res.headers['www-authenticate']).toBe('Bearer');
    },
  );

  it('answers 401 "Invalid or expired token" for an unknown token', async () => {
    const res = await request(t.http).get('/api/auth/me').set('Authorization', 'Bearer apt_doesnotexist');
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ detail: 'Invalid or expired token' });
    expect(res.headers['www-authenticate']).toBe('Bearer');
  });

  it('ignores a token passed in the query string', async () => {
    const res = await request(t.http).get(`/api/auth/me?access_token=${t.admin.token}`);
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ detail: 'Not authenticated' });
  });

  it('returns the caller and their team from /api/auth/me', async () => {
    const res = await request(t.http).get('/api/auth/me').set('Authorization', t.admin.auth);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ user: { id: 1, email: 'admin@localhost', role: 'admin' }, team: { id: 1, name: 'Default', plan: 'Free' } });
  });

  it('creates, lists and revokes tokens; a revoked token stops working', async () => {
    const user = await t.createUser();
    const created = await request(t.http).post('/api/auth/tokens').set('Authorization', user.auth).send({ name: 'ci', expires_in_days: 30 });
    expect(created.status).toBe(201);
    expect(created.headers.location).toBe(`/api/auth/tokens/${created.body.id}`);
    expect(created.body).toEqual({ id: expect.any(Number), name: 'ci', token: expect.stringMatching(/^apt_[A-Za-z0-9_-]{43}$/), created_at: expect.any(String), expires_at: expect.any(String) });
    const days = (Date.parse(created.body.expires_at) - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(29.9);
    expect(days).toBeLessThan(30.1);

    const newAuth = `Bearer ${created.body.token}`;
    expect((await request(t.http).get('/api/auth/me').set('Authorization', newAuth)).status).toBe(200);

    const list = await request(t.http).get('/api/auth/tokens').set('Authorization', user.auth);
    expect(list.status).toBe(200);
    expect(list.headers['x-total-count']).toBe('2');
    expect(list.body.map((x: { name: string }) => x.name)).toEqual(['default', 'ci']);
    const page = await request(t.http).get('/api/auth/tokens?limit=1&offset=1').set('Authorization', user.auth);
    expect(page.headers['x-total-count']).toBe('2');
    expect(page.body.map((x: { name: string }) => x.name)).toEqual(['ci']);
    expect(JSON.stringify(list.body)).not.toContain(created.body.token);
    expect(list.body[1].last_used_at).not.toBeNull();

    const revoked = await request(t.http).delete(`/api/auth/tokens/${created.body.id}`).set('Authorization', user.auth);
    expect(revoked.status).toBe(200);
    expect(revoked.body).toEqual({ id: created.body.id, revoked: true });
    const after = await request(t.http).get('/api/auth/me').set('Authorization', newAuth);
    expect(after.status).toBe(401);
    expect(after.body).toEqual({ detail: 'Invalid or expired token' });
  });

  it("answers 404 when revoking another user's token", async () => {
    const a = await t.createUser();
    const b = await t.createUser();
    const tokens = await request(t.http).get('/api/auth/tokens').set('Authorization', a.auth);
    const res = await request(t.http).delete(`/api/auth/tokens/${tokens.body[0].id}`).set('Authorization', b.auth);
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ detail: 'Token not found' });
    expect((await request(t.http).get('/api/auth/me').set('Authorization', a.auth)).status).toBe(200);
  });

  it('refuses an expired token', async () => {
    const user = await t.createUser();
    const created = await request(t.http).post('/api/auth/tokens').set('Authorization', user.auth).send({ name: 'short', expires_in_days: 1 });
    await t.dataSource.query(`UPDATE api_tokens SET expires_at = now() - interval '1 second' WHERE id = $1`, [created.body.id]);
    const res = await request(t.http).get('/api/auth/me').set('Authorization', `Bearer ${created.body.token}`);
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ detail: 'Invalid or expired token' });
  });

  it('authenticates concurrent requests of different users each as its own caller', async () => {
    const users = await Promise.all(Array.from({ length: 4 }, () => t.createUser()));
    const calls = Array.from({ length: 24 }, (_, i) => users[i % users.length]);
    const results = await Promise.all(calls.map((u) => request(t.http).get('/api/auth/me').set('Authorization', u.auth)));
    expect(results.map((r) => r.status)).toEqual(Array(24).fill(200));
    expect(results.map((r) => r.body.user.id)).toEqual(calls.map((u) => u.id));
  });

  it('stores only the SHA-256 of a token', async () => {
    const user = await t.createUser();
    const rows: { token_hash: string }[] = await t.dataSource.query(`SELECT token_hash FROM api_tokens WHERE user_id = $1`, [user.id]);
    expect(rows).toHaveLength(1);
    expect(rows[0].token_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(rows[0].token_hash).not.toContain(user.token);
  });
});

describe('Admin users API', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('creates a member in a new team, with a token that works', async () => {
    const res = await request(t.http).post('/api/admin/users').set('Authorization', t.admin.auth).send({ email: 'Ada@Example.com', team_name: 'Acme' });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ user_id: expect.any(Number), team_id: expect.any(Number), email: 'ada@example.com', role: 'member', token: expect.stringMatching(/^apt_/) });
    expect(res.headers.location).toBe(`/api/admin/users/${res.body.user_id}`);
    const me = await request(t.http).get('/api/auth/me').set('Authorization', `Bearer ${res.body.token}`);
    expect(me.body).toEqual({ user: { id: res.body.user_id, email: 'ada@example.com', role: 'member' }, team: { id: res.body.team_id, name: 'Acme', plan: 'Free' } });
  });

  it('adds a user to an existing team with team_id', async () => {
    const first = await t.createUser();
    const res = await request(t.http).post('/api/admin/users').set('Authorization', t.admin.auth).send({ email: 'teammate@example.com', team_id: first.teamId });
    expect(res.status).toBe(201);
    expect(res.body.team_id).toBe(first.teamId);
  });

  it('answers 409 for a taken email', async () => {
    const user = await t.createUser();
    const res = await request(t.http).post('/api/admin/users').set('Authorization', t.admin.auth).send({ email: user.email.toUpperCase() });
    expect(res.status).toBe(409);
    expect(res.body).toEqual({ detail: `A user with email ${user.email} already exists` });
  });

  it('answers 422 for an unknown team_id, and creates nothing', async () => {
    const res = await request(t.http).post('/api/admin/users').set('Authorization', t.admin.auth).send({ email: 'orphan@example.com', team_id: 99999 });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ detail: [{ loc: ['body', 'team_id'], msg: 'Team 99999 does not exist', type: 'value_error' }] });
    const rows = await t.dataSource.query(`SELECT 1 FROM users WHERE email = 'orphan@example.com'`);
    expect(rows).toHaveLength(0);
  });

  it('answers 403 Forbidden to a member on every admin route', async () => {
    const member = await t.createUser();
    for (const [method, url] of [['post', '/api/admin/users'], ['get', '/api/admin/users'], ['get', '/api/admin/users/1']] as const) {
      const res = await request(t.http)[method](url).set('Authorization', member.auth).send({ email: 'x@example.com' });
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ detail: 'Forbidden' });
    }
  });

  it('lets an admin list and read users, with X-Total-Count', async () => {
    const user = await t.createUser();
    const list = await request(t.http).get('/api/admin/users?limit=1&offset=0').set('Authorization', t.admin.auth);
    expect(list.status).toBe(200);
    expect(list.body).toHaveLength(1);
    expect(Number(list.headers['x-total-count'])).toBeGreaterThanOrEqual(2);
    const one = await request(t.http).get(`/api/admin/users/${user.id}`).set('Authorization', t.admin.auth);
    expect(one.body).toEqual({ id: user.id, email: user.email, role: 'member', team_id: user.teamId, created_at: expect.any(String) });
    const missing = await request(t.http).get('/api/admin/users/424242').set('Authorization', t.admin.auth);
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ detail: 'User not found' });
  });

  it('makes an admin with role admin', async () => {
    const admin2 = await t.createUser({ role: 'admin' });
    const res = await request(t.http).get('/api/admin/users').set('Authorization', admin2.auth);
    expect(res.status).toBe(200);
  });
});
