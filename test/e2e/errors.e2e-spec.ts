import request from 'supertest';
import { createTestApp, TestApp } from '../setup/test-app';

describe('Error format (CONTRACT §1)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  const post = (body: unknown, type = 'application/json') =>
    request(t.http)
      .post('/api/auth/tokens')
      .set('Authorization', t.admin.auth)
      .set('Content-Type', type)
      .send(typeof body === 'string' ? body : JSON.stringify(body));

  it('reports a missing field as `missing` at ["body", name]', async () => {
    const res = await post({});
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ detail: [{ loc: ['body', 'name'], msg: 'Field required', type: 'missing' }] });
  });

  it('reports every problem of a request at once', async () => {
    const res = await post({ name: 5, expires_in_days: 'soon', colour: 'red' });
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual(
      expect.arrayContaining([
        { loc: ['body', 'colour'], msg: 'Extra inputs are not permitted', type: 'extra_forbidden' },
        { loc: ['body', 'name'], msg: expect.any(String), type: 'string_type' },
        { loc: ['body', 'expires_in_days'], msg: expect.any(String), type: 'int_parsing' },
      ]),
    );
    expect(res.body.detail).toHaveLength(3);
  });

  it('reports string_too_long, string_too_short and value_error', async () => {
    const long = await post({ name: 'x'.repeat(101) });
    expect(long.body.detail).toEqual([{ loc: ['body', 'name'], msg: expect.any(String), type: 'string_too_long' }]);
    const short = await post({ name: '' });
    expect(short.body.detail).toEqual([{ loc: ['body', 'name'], msg: expect.any(String), type: 'string_too_short' }]);
    const range = await post({ name: 'a', expires_in_days: 0 });
    expect(range.body.detail).toEqual([{ loc: ['body', 'expires_in_days'], msg: expect.any(String), type: 'value_error' }]);
  });

  it('reports enum for a value outside its set', async () => {
    const res = await request(t.http).post('/api/admin/users').set('Authorization', t.admin.auth).send({ email: 'e@example.com', role: 'owner' });
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual([{ loc: ['body', 'role'], msg: expect.any(String), type: 'enum' }]);
  });

  it('answers 422 json_invalid for a body that is not JSON', async () => {
    const res = await post('{"name": ');
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ detail: [{ loc: ['body'], msg: 'Invalid JSON', type: 'json_invalid' }] });
  });

  it('answers 422 dict_type for a JSON body that is not an object', async () => {
    for (const body of ['[1,2]', '"text"', '42', 'null']) {
      const res = await post(body);
      expect(res.status).toBe(422);
      expect(res.body).toEqual({ detail: [{ loc: ['body'], msg: expect.any(String), type: 'dict_type' }] });
    }
  });

  it('answers 413 for a JSON body over the limit', async () => {
    const res = await post({ name: 'x'.repeat(1_100_000) });
    expect(res.status).toBe(413);
    expect(res.body).toEqual({ detail: expect.stringContaining('larger than') });
  });

  it('answers 422 int_parsing for a path id that is not an integer', async () => {
    for (const id of ['abc', '1.5', '-1', '0', '99999999999']) {
      const res = await request(t.http).get(`/api/admin/users/${id}`).set('Authorization', t.admin.auth);
      expect(res.status).toBe(422);
      expect(res.body).toEqual({ detail: [{ loc: ['path', 'user_id'], msg: expect.any(String), type: 'int_parsing' }] });
    }
  });

  it('answers 422 for bad limit and offset query values', async () => {
    const nan = await request(t.http).get('/api/admin/users?limit=abc').set('Authorization', t.admin.auth);
    expect(nan.status).toBe(422);
    expect(nan.body.detail).toEqual([{ loc: ['query', 'limit'], msg: expect.any(String), type: 'int_parsing' }]);
    const big = await request(t.http).get('/api/admin/users?limit=201&offset=-1').set('Authorization', t.admin.auth);
    expect(big.status).toBe(422);
    expect(big.body.detail).toEqual([
      { loc: ['query', 'limit'], msg: expect.any(String), type: 'value_error' },
      { loc: ['query', 'offset'], msg: expect.any(String), type: 'value_error' },
    ]);
    const max = await request(t.http).get('/api/admin/users?limit=200').set('Authorization', t.admin.auth);
    expect(max.status).toBe(200);
  });

  it.each([
    ['a valid', () => t.admin.auth],
    ['an invalid', () => 'Bearer apt_nope'],
    ['no', () => undefined],
  ])('answers 404 {"detail":"Not Found"} for an unknown route with %s token', async (_label, auth) => {
    for (const path of ['/api/nope', '/api', '/nope', '/api/auth/me/extra']) {
      const req = request(t.http).get(path);
      const header = auth();
      if (header) req.set('Authorization', header);
      const res = await req;
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ detail: 'Not Found' });
    }
  });

  it('never shows a stack trace or SQL: a database error is a bare 500 or 503', async () => {
    const user = await t.createUser();
    // Break the table behind token listing for this one request.
    await t.dataSource.query('ALTER TABLE api_tokens RENAME COLUMN name TO name_gone');
    try {
      const res = await request(t.http).get('/api/auth/tokens').set('Authorization', user.auth);
      expect(res.status).toBe(500);
      expect(res.body).toEqual({ detail: 'Internal Server Error' });
      expect(res.text).not.toMatch(/SELECT|column|at .*\.ts/);
    } finally {
      await t.dataSource.query('ALTER TABLE api_tokens RENAME COLUMN name_gone TO name');
    }
  });
});
