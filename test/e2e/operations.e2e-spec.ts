import SwaggerParser from '@apidevtools/swagger-parser';
import request from 'supertest';
import { createTestApp, TestApp } from '../setup/test-app';

/** Routes that answer without a token (CONTRACT §2). Everything else must answer 401. */
const PUBLIC_ROUTES = new Set(['GET /api/health', 'GET /api/health/ready', 'POST /api/webhooks/payment']);

const SAMPLE_PARAMS: Record<string, string> = { uuid: '3f0b5c9e-8a3b-4c1e-9a57-2f6f9d1b7e21', integer: '1' };

describe('Operations', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ METRICS_TOKEN: 'metrics-secret' });
  });
  afterAll(() => t.close());

  it('answers /api/health and /api/health/ready without a token', async () => {
    const live = await request(t.http).get('/api/health');
    expect(live.status).toBe(200);
    expect(live.body).toEqual({ status: 'ok' });
    const ready = await request(t.http).get('/api/health/ready');
    expect(ready.status).toBe(200);
    expect(ready.body.status).toBe('ok');
    expect(ready.body.info).toEqual({ database: expect.objectContaining({ status: 'up' }), migrations: { status: 'up' } });
  });

  it('reuses a well-formed X-Request-Id and replaces anything else', async () => {
    const kept = await request(t.http).get('/api/health').set('X-Request-Id', 'abc-123_x.y');
    expect(kept.headers['x-request-id']).toBe('abc-123_x.y');
    const replaced = await request(t.http).get('/api/health').set('X-Request-Id', 'bad id\twith spaces');
    expect(replaced.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    const tooLong = await request(t.http).get('/api/health').set('X-Request-Id', 'a'.repeat(129));
    expect(tooLong.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    const none = await request(t.http).get('/api/health');
    expect(none.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('sets security headers (helmet)', async () => {
    const res = await request(t.http).get('/api/health');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['x-frame-options']).toBe('SAMEORIGIN');
    expect(res.headers['x-powered-by']).toBeUndefined();
  });

  it('guards /metrics with METRICS_TOKEN and exposes request metrics by route', async () => {
    const denied = await request(t.http).get('/metrics');
    expect(denied.status).toBe(401);
    expect(denied.body).toEqual({ detail: 'Not authenticated' });
    const wrong = await request(t.http).get('/metrics').set('Authorization', 'Bearer nope');
    expect(wrong.status).toBe(401);
    await request(t.http).get('/api/auth/me').set('Authorization', t.admin.auth);
    const res = await request(t.http).get('/metrics').set('Authorization', 'Bearer metrics-secret');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toContain('text/plain');
    expect(res.text).toMatch(/http_requests_total\{method="GET",route="\/api\/auth\/me",status="200"\} \d+/);
    expect(res.text).toContain('http_request_duration_seconds_bucket');
    expect(res.text).toContain('process_resident_memory_bytes');
  });

  it('serves the Swagger UI at /docs', async () => {
    const res = await request(t.http).get('/docs/');
    expect(res.status).toBe(200);
    expect(res.text).toContain('swagger-ui');
  });

  it('serves an OpenAPI 3 document that a validator accepts, with bearer security and the error schemas', async () => {
    const res = await request(t.http).get('/docs-json');
    expect(res.status).toBe(200);
    const doc = res.body;
    expect(doc.openapi).toMatch(/^3\./);
    await expect(SwaggerParser.validate(structuredClone(doc))).resolves.toBeTruthy();
    expect(doc.components.securitySchemes.bearer).toEqual(expect.objectContaining({ type: 'http', scheme: 'bearer' }));
    expect(doc.components.schemas.ValidationErrorBody).toBeDefined();
    expect(doc.components.schemas.ErrorBody).toBeDefined();
    expect(doc.paths['/api/auth/me'].get.security).toEqual([{ bearer: [] }]);
    expect(doc.paths['/api/health'].get.security).toEqual([{}]);
  });

  it('denies by default: every documented route but the public ones answers 401 without a token', async () => {
    const doc = (await request(t.http).get('/docs-json')).body as {
      paths: Record<string, Record<string, { parameters?: { in: string; name: string; schema?: { type?: string; format?: string } }[] }>>;
    };
    const checked: string[] = [];
    for (const [path, operations] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(operations)) {
        const key = `${method.toUpperCase()} ${path}`;
        if (PUBLIC_ROUTES.has(key)) continue;
        const url = path.replace(/\{(\w+)\}/g, (_m, name: string) => {
          const schema = op.parameters?.find((p) => p.in === 'path' && p.name === name)?.schema;
          return schema?.format === 'uuid' ? SAMPLE_PARAMS.uuid : SAMPLE_PARAMS.integer;
        });
        const res = await (request(t.http) as any)[method](url);
        // A HEAD answer has no body; its status and challenge still say it all.
        const body = method === 'head' ? undefined : { detail: 'Not authenticated' };
        expect({ key, status: res.status, challenge: res.headers['www-authenticate'], body: method === 'head' ? undefined : res.body }).toEqual({
          key,
          status: 401,
          challenge: 'Bearer',
          body,
        });
        checked.push(key);
      }
    }
    expect(checked.length).toBeGreaterThan(5);
  });
});

describe('Rate limiting', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ RATE_LIMIT_PER_MINUTE: '3' });
  });
  afterAll(() => t.close());

  it('answers 429 "Too many requests" with Retry-After past the limit, per token', async () => {
    const other = await t.createUser();
    for (let i = 0; i < 3; i++) expect((await request(t.http).get('/api/auth/me').set('Authorization', t.admin.auth)).status).toBe(200);
    const limited = await request(t.http).get('/api/auth/me').set('Authorization', t.admin.auth);
    expect(limited.status).toBe(429);
    expect(limited.body).toEqual({ detail: 'Too many requests' });
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    // Another token has its own budget.
    expect((await request(t.http).get('/api/auth/me').set('Authorization', other.auth)).status).toBe(200);
  });

  it('does not limit the health routes', async () => {
    for (let i = 0; i < 6; i++) expect((await request(t.http).get('/api/health')).status).toBe(200);
  });
});
