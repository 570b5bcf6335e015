import { createServer, IncomingMessage, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { createTestApp, TestApp } from '../setup/test-app';

interface ProviderRequest {
  method: string;
  path: string;
  authorization: string | undefined;
  form: URLSearchParams;
}

/** A stand-in for the payment provider's API: records requests, answers like its checkout endpoint. */
async function fakeProvider(answer: (req: ProviderRequest) => { status: number; body: unknown }) {
  const received: ProviderRequest[] = [];
  const server: Server = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const recorded = {
        method: req.method ?? '',
        path: req.url ?? '',
        authorization: req.headers.authorization,
        form: new URLSearchParams(Buffer.concat(chunks).toString('utf8')),
      };
      received.push(recorded);
      const { status, body } = answer(recorded);
      res.writeHead(status, { 'Content-Type': 'application/json', 'Request-Id': 'req_fake' });
      res.end(JSON.stringify(body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const CHECKOUT = {
  price_id: 'price_pro',
  success_url: 'https://app.example.com/billing/ok',
  cancel_url: 'https://app.example.com/billing',
};

describe('GET /api/team', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ PLAN_LIMITS: '{"Free":{"mcp_connection_tests":50},"Pro":{"storage_bytes":10737418240}}' });
  });
  afterAll(() => t.close());

  it("returns the caller's team in the contract's shape, with the plan's limits", async () => {
    const user = await t.createUser();
    const res = await request(t.http).get('/api/team').set('Authorization', user.auth);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id: user.teamId,
      name: expect.any(String),
      plan: 'Free',
      subscription_status: null,
      current_period_start: null,
      current_period_end: null,
      cancel_at_period_end: false,
      payment_customer_id: null,
      payment_subscription_id: null,
      usage: { storage_bytes: 0, files_uploaded: 0, mcp_connection_tests: 0 },
      // PLAN_LIMITS names Free's mcp_connection_tests; the other counters keep the built-in defaults.
      limits: { storage_bytes: 1073741824, files_uploaded: null, mcp_connection_tests: 50 },
    });
  });

  it('reflects billing state and usage as numbers, and the limits of the current plan', async () => {
    const user = await t.createUser();
    await t.dataSource.query(
      `UPDATE teams SET plan = 'Pro', subscription_status = 'active', current_period_start = '2026-11-01T00:00:00Z',
         current_period_end = '2026-12-01T00:00:00Z', cancel_at_period_end = true, payment_customer_id = 'cus_1',
         payment_subscription_id = 'sub_1', usage_storage_bytes = 5368709120, usage_files_uploaded = 12, usage_mcp_connection_tests = 3
       WHERE id = $1`,
      [user.teamId],
    );
    const res = await request(t.http).get('/api/team').set('Authorization', user.auth);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      plan: 'Pro',
      subscription_status: 'active',
      current_period_start: '2026-11-01T00:00:00.000Z',
      current_period_end: '2026-12-01T00:00:00.000Z',
      cancel_at_period_end: true,
      payment_customer_id: 'cus_1',
      payment_subscription_id: 'sub_1',
      usage: { storage_bytes: 5368709120, files_uploaded: 12, mcp_connection_tests: 3 },
      limits: { storage_bytes: 10737418240, files_uploaded: null, mcp_connection_tests: null },
    });
  });

  it('shows members of one team the same team', async () => {
    const a = await t.createUser();
    const b = await t.createUser({ teamId: a.teamId });
    const ra = await request(t.http).get('/api/team').set('Authorization', a.auth);
    const rb = await request(t.http).get('/api/team').set('Authorization', b.auth);
    expect(rb.body).toEqual(ra.body);
  });

  it('answers 401 without a token', async () => {
    const res = await request(t.http).get('/api/team');
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ detail: 'Not authenticated' });
  });
});

describe('POST /api/billing/checkout', () => {
  let t: TestApp;
  let provider: Awaited<ReturnType<typeof fakeProvider>>;
  let answer: (req: ProviderRequest) => { status: number; body: unknown };

  beforeAll(async () => {
    provider = await fakeProvider((req) => answer(req));
    t = await createTestApp({
      PAYMENT_SECRET_KEY: 'sk_test_fake_key',
      PAYMENT_API_BASE: provider.base,
      PAYMENT_PRICE_PLANS: 'price_pro=Pro,price_team=Team',
    });
  });
  afterAll(async () => {
    await t.close();
    await provider.close();
  });
  beforeEach(() => {
    provider.received.length = 0;
    answer = () => ({
      status: 200,
      body: { id: 'cs_test_123', object: 'checkout.session', url: 'https://checkout.example.com/c/pay/cs_test_123' },
    });
  });

  it("creates a checkout session with the provider, carrying the caller's team id in metadata.team_id", async () => {
    const user = await t.createUser();
    const res = await request(t.http).post('/api/billing/checkout').set('Authorization', user.auth).send(CHECKOUT);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ url: 'https://checkout.example.com/c/pay/cs_test_123' });
    expect(provider.received).toHaveLength(1);
    const [sent] = provider.received;
    expect(sent.method).toBe('POST');
    expect(sent.path).toBe('/v1/checkout/sessions');
    expect(sent.authorization).toBe('Bearer sk_test_fake_key');
    expect(sent.form.get('metadata[team_id]')).toBe(String(user.teamId));
    expect(sent.form.get('subscription_data[metadata][team_id]')).toBe(String(user.teamId));
    expect(sent.form.get('mode')).toBe('subscription');
    expect(sent.form.get('line_items[0][price]')).toBe('price_pro');
    expect(sent.form.get('line_items[0][quantity]')).toBe('1');
    expect(sent.form.get('success_url')).toBe(CHECKOUT.success_url);
    expect(sent.form.get('cancel_url')).toBe(CHECKOUT.cancel_url);
    expect(sent.form.get('customer')).toBeNull();
  });

  it("reuses the team's provider customer when it has one", async () => {
    const user = await t.createUser();
    await t.dataSource.query(`UPDATE teams SET payment_customer_id = 'cus_existing' WHERE id = $1`, [user.teamId]);
    const res = await request(t.http)
      .post('/api/billing/checkout')
      .set('Authorization', user.auth)
      .send({ ...CHECKOUT, price_id: 'price_team' });
    expect(res.status).toBe(200);
    expect(provider.received[0].form.get('customer')).toBe('cus_existing');
  });

  it('answers 422 for a price id not in PAYMENT_PRICE_PLANS, without calling the provider', async () => {
    const user = await t.createUser();
    const res = await request(t.http)
      .post('/api/billing/checkout')
      .set('Authorization', user.auth)
      .send({ ...CHECKOUT, price_id: 'price_other' });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ detail: [{ loc: ['body', 'price_id'], msg: expect.any(String), type: 'value_error' }] });
    expect(provider.received).toHaveLength(0);
  });

  it('answers 422 with every problem of an invalid body', async () => {
    const user = await t.createUser();
    const res = await request(t.http)
      .post('/api/billing/checkout')
      .set('Authorization', user.auth)
      .send({ success_url: 'not a url', cancel_url: 5, extra: 1 });
    expect(res.status).toBe(422);
    const items = (res.body as { detail: { loc: string[]; type: string }[] }).detail.map((d) => `${d.loc.join('.')}:${d.type}`).sort();
    expect(items).toEqual(
      expect.arrayContaining([
        'body.price_id:missing',
        'body.success_url:value_error',
        'body.cancel_url:string_type',
        'body.extra:extra_forbidden',
      ]),
    );
    expect(provider.received).toHaveLength(0);
  });

  it('answers 502 when the provider refuses, without echoing its message', async () => {
    answer = () => ({ status: 400, body: { error: { type: 'invalid_request_error', message: 'No such price: secret detail' } } });
    const user = await t.createUser();
    const res = await request(t.http).post('/api/billing/checkout').set('Authorization', user.auth).send(CHECKOUT);
    expect(res.status).toBe(502);
    expect(res.body).toEqual({ detail: 'Payment provider request failed' });
  });

  it('answers 401 without a token', async () => {
    const res = await request(t.http).post('/api/billing/checkout').send(CHECKOUT);
    expect(res.status).toBe(401);
    expect(provider.received).toHaveLength(0);
  });
});

// After the configured app is closed (passport keeps the latest app's strategy: one app at a time).
describe('POST /api/billing/checkout without PAYMENT_SECRET_KEY', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ PAYMENT_PRICE_PLANS: 'price_pro=Pro' });
  });
  afterAll(() => t.close());

  it('answers 503 "Billing is not configured"', async () => {
    const user = await t.createUser();
    const res = await request(t.http).post('/api/billing/checkout').set('Authorization', user.auth).send(CHECKOUT);
    expect(res.status).toBe(503);
    expect(res.body).toEqual({ detail: 'Billing is not configured' });
  });

  it('documents the checkout operation with bearer security', async () => {
    const res = await request(t.http).get('/docs-json');
    const op = res.body.paths['/api/billing/checkout'].post;
    expect(op.security).toEqual([{ bearer: [] }]);
    expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['200', '401', '422', '502', '503']));
  });
});
