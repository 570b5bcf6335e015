import * as net from 'node:net';
import type { Pool, PoolClient } from 'pg';
import request from 'supertest';
import type { QueryRunner } from 'typeorm';
import type { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver';
import { TokensService } from '../../src/auth/tokens.service';
import { createTestApp, TestApp, TestUser } from '../setup/test-app';

/**
 * store-info and requests in general when the database misbehaves. The
 * trouble starts right after authentication (a spy on the token check), since
 * authentication itself needs the database. Pool of 2, connect timeout 1 s.
 */
describe('Memory store-info when the database misbehaves', () => {
  let t: TestApp;
  let user: TestUser;
  let tokens: TokensService;
  let pool: Pool;
  let url: string;
  const held: QueryRunner[] = [];

  beforeAll(async () => {
    t = await createTestApp({ DATABASE_POOL_SIZE: '2', DATABASE_CONNECT_TIMEOUT_MS: '1000' });
    user = await t.createUser();
    await request(t.http).post('/api/memory').set('Authorization', user.auth).send({ content: 'something to count' });
    tokens = t.app.get(TokensService);
    pool = (t.dataSource.driver as PostgresDriver).master as Pool;
    url = (pool.options as { connectionString: string }).connectionString;
  });
  afterEach(async () => {
    jest.restoreAllMocks();
    (pool.options as { connectionString: string }).connectionString = url;
    for (const runner of held.splice(0)) {
      if (runner.isTransactionActive) await runner.rollbackTransaction();
      await runner.release();
    }
    // Let work abandoned past a deadline finish before the next test.
    await waitUntilReady();
  });
  afterAll(() => t.close());

  const storeInfo = async () => {
    const started = Date.now();
    const res = await request(t.http).get('/api/memory/store-info').set('Authorization', user.auth);
    return { res, elapsed: Date.now() - started };
  };

  async function waitUntilReady(): Promise<void> {
    for (let i = 0; i < 50; i++) {
      const { res } = await storeInfo();
      if (res.body.status === 'ready') return;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error('store-info did not become ready again');
  }

  /** Runs `trouble` right after the next successful token check. */
  function afterAuthentication(trouble: () => Promise<void>): void {
    const original = tokens.authenticate.bind(tokens);
    jest.spyOn(tokens, 'authenticate').mockImplementationOnce(async (value: string) => {
      const caller = await original(value);
      await trouble();
      return caller;
    });
  }

  async function hold(): Promise<QueryRunner> {
    const runner = t.dataSource.createQueryRunner();
    await runner.connect();
    held.push(runner);
    return runner;
  }

  /** New connections go to `port`; idle ones are closed, so nothing reaches the real database. */
  async function pointPoolAt(port: number): Promise<void> {
    (pool.options as { connectionString: string }).connectionString = `postgres://postgres@127.0.0.1:${port}/gone`;
    while (pool.idleCount > 0) {
      const client: PoolClient = await pool.connect();
      client.release(true);
    }
  }

  async function listen(onSocket: (socket: net.Socket) => void): Promise<net.Server> {
    const server = net.createServer(onSocket);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return server;
  }

  it('answers ready with the counts when all is well', async () => {
    const { res } = await storeInfo();
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'ready', entries: 1, size_bytes: 18 });
    expect(res.body).not.toHaveProperty('error');
  });

  it('answers 200 unavailable within 2 s while other work holds every pooled connection', async () => {
    afterAuthentication(async () => {
      await hold();
      await hold();
    });
    const { res, elapsed } = await storeInfo();
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      backend: t.backend,
      status: 'unavailable',
      search: 'full_text',
      entries: null,
      size_bytes: null,
      last_write_at: null,
      database: { version: null },
      // The pool's own wait (1 s here) ends before the 1.2 s deadline.
      error: 'Timed out waiting for a database connection (connection pool exhausted or database unreachable)',
    });
    expect(elapsed).toBeLessThan(2000);
  });

  it('answers 200 unavailable within 2 s while its query is blocked by a lock', async () => {
    afterAuthentication(async () => {
      const runner = await hold();
      await runner.startTransaction();
      await runner.query('LOCK TABLE memory_entries IN ACCESS EXCLUSIVE MODE');
    });
    const { res, elapsed } = await storeInfo();
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('unavailable');
    // PostgreSQL cancels the blocked query (statement_timeout); the embedded database runs one transaction at a time, so the deadline fires.
    expect(res.body.error).toBe(
      t.backend === 'postgres'
        ? 'Store query cancelled after the 900 ms statement timeout'
        : 'No answer from the database within 1200 ms (connection pool exhausted or database busy)',
    );
    expect(elapsed).toBeLessThan(2000);
  });

  it('answers 200 unavailable when its query fails', async () => {
    afterAuthentication(async () => {
      await t.dataSource.query('ALTER TABLE memory_entries RENAME TO memory_entries_moved');
    });
    try {
      const { res } = await storeInfo();
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        status: 'unavailable',
        entries: null,
        error: 'Store query failed: relation "memory_entries" does not exist',
      });
    } finally {
      await t.dataSource.query('ALTER TABLE memory_entries_moved RENAME TO memory_entries');
    }
  });

  it('answers 200 unavailable when the database goes away after authentication, then 503 quickly, and recovers', async () => {
    const closed = await listen(() => undefined);
    const port = (closed.address() as net.AddressInfo).port;
    await new Promise((r) => closed.close(r));
    afterAuthentication(() => pointPoolAt(port));
    const { res, elapsed } = await storeInfo();
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'unavailable', error: expect.stringMatching(/^Database unreachable: .*ECONNREFUSED/) });
    expect(elapsed).toBeLessThan(2000);

    const started = Date.now();
    const down = await request(t.http).get('/api/memory').set('Authorization', user.auth);
    expect(down.status).toBe(503);
    expect(down.body).toEqual({ detail: 'Service unavailable' });
    expect(Date.now() - started).toBeLessThan(2000);

    (pool.options as { connectionString: string }).connectionString = url;
    expect((await request(t.http).get('/api/memory').set('Authorization', user.auth)).status).toBe(200);
  });

  it('answers 503 within 2 s, not hanging, when the database accepts connections but never answers', async () => {
    const sockets: net.Socket[] = [];
    const silent = await listen((socket) => void sockets.push(socket));
    try {
      await pointPoolAt((silent.address() as net.AddressInfo).port);
      const started = Date.now();
      const res = await request(t.http).get('/api/memory/store-info').set('Authorization', user.auth);
      expect(res.status).toBe(503);
      expect(res.body).toEqual({ detail: 'Service unavailable' });
      expect(Date.now() - started).toBeLessThan(2000);
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((r) => silent.close(r));
    }
  });
});
