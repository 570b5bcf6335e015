import request from 'supertest';
import { createTestApp, TestApp } from '../setup/test-app';

/** The database goes away and comes back while the service keeps running. */
describe('Database outage', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ DATABASE_CONNECT_TIMEOUT_MS: '1000' }, { proxy: true });
  });
  afterAll(() => t.close());

  it('answers 503 quickly while the database is unreachable, and recovers by itself', async () => {
    expect((await request(t.http).get('/api/auth/me').set('Authorization', t.admin.auth)).status).toBe(200);
    await t.proxy!.cut();

    let started = Date.now();
    const me = await request(t.http).get('/api/auth/me').set('Authorization', t.admin.auth);
    expect(me.status).toBe(503);
    expect(me.body).toEqual({ detail: 'Service unavailable' });
    expect(Date.now() - started).toBeLessThan(2500);

    started = Date.now();
    const ready = await request(t.http).get('/api/health/ready');
    expect(ready.status).toBe(503);
    expect(Date.now() - started).toBeLessThan(2500);

    // Liveness does not depend on the database.
    const live = await request(t.http).get('/api/health');
    expect(live.status).toBe(200);

    await t.proxy!.restore();
    // The pool drops broken connections and reconnects: no restart needed.
    let status = 0;
    for (let i = 0; i < 30 && status !== 200; i++) {
      status = (await request(t.http).get('/api/health/ready')).status;
      if (status !== 200) await new Promise((r) => setTimeout(r, 200));
    }
    expect(status).toBe(200);
    const after = await request(t.http).get('/api/auth/me').set('Authorization', t.admin.auth);
    expect(after.status).toBe(200);
  }, 30_000);
});
