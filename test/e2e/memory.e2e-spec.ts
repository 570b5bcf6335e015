import request from 'supertest';
import { createAgent } from '../factories/agents';
import { createTestApp, TestApp, TestUser } from '../setup/test-app';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const UUID4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const MISSING_ID = '00000000-0000-4000-8000-000000000000';

describe('Memory', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  const write = async (u: TestUser, body: Record<string, unknown>) => {
    const res = await request(t.http).post('/api/memory').set('Authorization', u.auth).send(body);
    if (res.status !== 201) throw new Error(`write: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body as { id: string; content: string; created_at: string };
  };
  const search = (u: TestUser, query: Record<string, string | number | undefined>) =>
    request(t.http).get('/api/memory').query(query).set('Authorization', u.auth);
  const contents = (res: request.Response) => (res.body as { content: string }[]).map((e) => e.content);

  describe('entries', () => {
    it('writes an entry with defaults, answering 201 with Location, and reads it back', async () => {
      const user = await t.createUser();
      const res = await request(t.http).post('/api/memory').set('Authorization', user.auth).send({ content: 'Prefers tea' });
      expect(res.status).toBe(201);
      expect(res.body).toEqual({
        id: expect.stringMatching(UUID4),
        content: 'Prefers tea',
        tags: [],
        agent_id: null,
        metadata: {},
        created_at: expect.stringMatching(ISO),
      });
      expect(res.headers.location).toBe(`/api/memory/${res.body.id}`);
      const got = await request(t.http).get(res.headers.location).set('Authorization', user.auth);
      expect(got.status).toBe(200);
      expect(got.body).toEqual(res.body);
    });

    it("keeps tags (once each), metadata and the caller's agent", async () => {
      const user = await t.createUser();
      const agent = await createAgent(t, user);
      const res = await request(t.http)
        .post('/api/memory')
        .set('Authorization', user.auth)
        .send({
          content: 'Met Ada',
          tags: ['people', 'ada', 'people'],
          agent_id: agent.id.toUpperCase(),
          metadata: { turn: 3, nested: { ok: true } },
        });
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ tags: ['people', 'ada'], agent_id: agent.id, metadata: { turn: 3, nested: { ok: true } } });
    });

    it("answers 422 for another user's agent or an unknown one, and stores nothing", async () => {
      const user = await t.createUser();
      const other = await t.createUser();
      const theirs = await createAgent(t, other);
      for (const agentId of [theirs.id, MISSING_ID]) {
        const res = await request(t.http).post('/api/memory').set('Authorization', user.auth).send({ content: 'x', agent_id: agentId });
        expect(res.status).toBe(422);
        expect(res.body).toEqual({ detail: [{ loc: ['body', 'agent_id'], msg: `Agent ${agentId} not found`, type: 'value_error' }] });
      }
      expect(await t.dataSource.query('SELECT 1 FROM memory_entries WHERE user_id = $1', [user.id])).toEqual([]);
    });

    it('accepts 32 KiB of content, counted in UTF-8 bytes, and refuses more', async () => {
      const user = await t.createUser();
      const post = (body: object) => request(t.http).post('/api/memory').set('Authorization', user.auth).send(body);
      expect((await post({ content: 'a'.repeat(32768) })).status).toBe(201);
      for (const content of ['a'.repeat(32769), 'é'.repeat(16385)]) {
        const res = await post({ content });
        expect(res.status).toBe(422);
        expect(res.body).toEqual({
          detail: [{ loc: ['body', 'content'], msg: 'content must be at most 32768 bytes (UTF-8)', type: 'string_too_long' }],
        });
      }
    });

    it('answers 422 with every problem of an invalid entry', async () => {
      const user = await t.createUser();
      const res = await request(t.http)
        .post('/api/memory')
        .set('Authorization', user.auth)
        .send({ content: '', tags: Array.from({ length: 21 }, (_, i) => `t${i}`), agent_id: 'nope', metadata: [1], extra: 1 });
      expect(res.status).toBe(422);
      expect(res.body.detail).toEqual([
        { loc: ['body', 'extra'], msg: 'Extra inputs are not permitted', type: 'extra_forbidden' },
        { loc: ['body', 'content'], msg: expect.any(String), type: 'string_too_short' },
        { loc: ['body', 'tags'], msg: expect.any(String), type: 'too_long' },
        { loc: ['body', 'agent_id'], msg: expect.any(String), type: 'uuid_parsing' },
        { loc: ['body', 'metadata'], msg: expect.any(String), type: 'dict_type' },
      ]);
      const more = await request(t.http)
        .post('/api/memory')
        .set('Authorization', user.auth)
        .send({ tags: ['ok', 7, 'x'.repeat(65)], metadata: { big: 'x'.repeat(16 * 1024) } });
      expect(more.body.detail).toEqual([
        { loc: ['body', 'content'], msg: 'Field required', type: 'missing' },
        { loc: ['body', 'tags'], msg: expect.any(String), type: 'string_type' },
        { loc: ['body', 'metadata'], msg: 'metadata must be at most 16384 bytes as JSON', type: 'value_error' },
      ]);
    });

    it('deletes an entry; another user gets 404 and sees nothing', async () => {
      const user = await t.createUser();
      const other = await t.createUser();
      const entry = await write(user, { content: 'secret plans for the launch', tags: ['launch'] });
      const o = (m: 'get' | 'delete') => request(t.http)[m](`/api/memory/${entry.id}`).set('Authorization', other.auth);
      for (const res of [await o('get'), await o('delete')]) {
        expect(res.status).toBe(404);
        expect(res.body).toEqual({ detail: 'Memory entry not found' });
      }
      for (const query of [{}, { q: 'launch' }, { tag: 'launch' }]) {
        const res = await search(other, query);
        expect(res.body).toEqual([]);
        expect(res.headers['x-total-count']).toBe('0');
      }
      const del = await request(t.http).delete(`/api/memory/${entry.id}`).set('Authorization', user.auth);
      expect(del.status).toBe(200);
      expect(del.body).toEqual({ id: entry.id, deleted: true });
      expect(await t.dataSource.query('SELECT 1 FROM memory_entries WHERE id = $1', [entry.id])).toEqual([]);
      expect((await request(t.http).delete(`/api/memory/${entry.id}`).set('Authorization', user.auth)).status).toBe(404);
    });

    it('answers 422 uuid_parsing for a memory id or agent_id filter that is not a UUID', async () => {
      const user = await t.createUser();
      for (const res of [
        await request(t.http).get('/api/memory/123').set('Authorization', user.auth),
        await request(t.http).delete('/api/memory/abc').set('Authorization', user.auth),
      ]) {
        expect(res.status).toBe(422);
        expect(res.body).toEqual({ detail: [{ loc: ['path', 'memory_id'], msg: 'Input should be a valid UUID', type: 'uuid_parsing' }] });
      }
      const res = await search(user, { agent_id: 'abc', limit: 500 });
      expect(res.status).toBe(422);
      expect(res.body.detail).toEqual([
        { loc: ['query', 'agent_id'], msg: expect.any(String), type: 'uuid_parsing' },
        { loc: ['query', 'limit'], msg: expect.any(String), type: 'value_error' },
      ]);
    });

    it("deletes an agent's entries with the agent", async () => {
      const user = await t.createUser();
      const agent = await createAgent(t, user);
      await write(user, { content: 'agent memory', agent_id: agent.id });
      await write(user, { content: 'user memory' });
      expect((await request(t.http).delete(`/api/agents/${agent.id}`).set('Authorization', user.auth)).status).toBe(200);
      expect(contents(await search(user, {}))).toEqual(['user memory']);
    });
  });

  describe('search', () => {
    let user: TestUser;
    let agentId: string;
    beforeAll(async () => {
      user = await t.createUser();
      agentId = (await createAgent(t, user)).id;
      // Written one by one, so created_at orders them: the last written is the newest.
      await write(user, { content: 'The weekly report is due on Monday', tags: ['work'] });
      await write(user, { content: 'weekly report, weekly report: the weekly report again', tags: ['work', 'reports'], agent_id: agentId });
      await write(user, { content: 'Daily standup notes about the report', tags: ['notes'] });
      await write(user, { content: 'Grocery list: apples, bread, tea', tags: ['home'] });
      await write(user, { content: 'The weekly report is due on Monday', tags: ['copy'], agent_id: agentId });
    });

    it('ranks the best match first and breaks ties newest first', async () => {
      const res = await search(user, { q: 'weekly report' });
      expect(res.status).toBe(200);
      expect(res.headers['x-total-count']).toBe('3');
      expect(res.body.map((e: { tags: string[] }) => e.tags)).toEqual([['work', 'reports'], ['copy'], ['work']]);
    });

    it('supports web-search syntax: phrases, OR and exclusion', async () => {
      expect(contents(await search(user, { q: '"report is due"' }))).toEqual([
        'The weekly report is due on Monday',
        'The weekly report is due on Monday',
      ]);
      expect(contents(await search(user, { q: 'report -weekly' }))).toEqual(['Daily standup notes about the report']);
      expect(contents(await search(user, { q: 'tea or standup' })).sort()).toEqual([
        'Daily standup notes about the report',
        'Grocery list: apples, bread, tea',
      ]);
      expect(contents(await search(user, { q: 'APPLES' }))).toEqual(['Grocery list: apples, bread, tea']);
    });

    it('finds nothing for words that are not there or a query without words, and lists all for a blank one', async () => {
      for (const q of ['submarine', '!!!']) {
        const res = await search(user, { q });
        expect(res.status).toBe(200);
        expect(res.body).toEqual([]);
        expect(res.headers['x-total-count']).toBe('0');
      }
      expect((await search(user, { q: '   ' })).headers['x-total-count']).toBe('5');
    });

    it('filters by agent and tag, alone and with a search', async () => {
      expect((await search(user, { agent_id: agentId })).body.map((e: { tags: string[] }) => e.tags)).toEqual([
        ['copy'],
        ['work', 'reports'],
      ]);
      expect((await search(user, { tag: 'work' })).body.map((e: { tags: string[] }) => e.tags)).toEqual([['work', 'reports'], ['work']]);
      const both = await search(user, { q: 'monday', agent_id: agentId, tag: 'copy' });
      expect(both.body.map((e: { tags: string[] }) => e.tags)).toEqual([['copy']]);
      expect((await search(user, { tag: 'wor' })).body).toEqual([]);
      expect((await search(user, { agent_id: MISSING_ID })).body).toEqual([]);
    });

    it('lists newest first without a search, with limit, offset and X-Total-Count', async () => {
      const all = await search(user, {});
      expect(all.headers['x-total-count']).toBe('5');
      expect(all.body.map((e: { tags: string[] }) => e.tags[0])).toEqual(['copy', 'home', 'notes', 'work', 'work']);
      const page = await search(user, { q: 'weekly report', limit: 1, offset: 1 });
      expect(page.headers['x-total-count']).toBe('3');
      expect(page.body.map((e: { tags: string[] }) => e.tags)).toEqual([['copy']]);
    });

    it('uses the GIN index on the generated tsvector', async () => {
      const runner = t.dataSource.createQueryRunner();
      await runner.connect();
      try {
        await runner.query('SET enable_seqscan = off');
        const plan: { 'QUERY PLAN': string }[] = await runner.query(
          `EXPLAIN SELECT id FROM memory_entries WHERE search @@ websearch_to_tsquery('simple', 'weekly')`,
        );
        expect(plan.map((r) => r['QUERY PLAN']).join('\n')).toContain('memory_entries_search_idx');
      } finally {
        await runner.query('RESET enable_seqscan');
        await runner.release();
      }
    });
  });

  describe('store-info', () => {
    it('is routed to store-info, never to the memory id route', async () => {
      const user = await t.createUser();
      const res = await request(t.http).get('/api/memory/store-info').set('Authorization', user.auth);
      expect(res.status).toBe(200);
      expect(res.body.status).toBe('ready');
      const del = await request(t.http).delete('/api/memory/store-info').set('Authorization', user.auth);
      expect(del.status).toBe(404);
      expect(del.body).toEqual({ detail: 'Not Found' });
      expect((await request(t.http).get('/api/memory/store-info')).status).toBe(401);
    });

    it("reports the caller's entries, their size and the last write", async () => {
      const user = await t.createUser();
      const other = await t.createUser();
      const info = async () => (await request(t.http).get('/api/memory/store-info').set('Authorization', user.auth)).body;
      const empty = await info();
      expect(empty).toEqual({
        backend: t.backend,
        status: 'ready',
        search: 'full_text',
        entries: 0,
        size_bytes: 0,
        last_write_at: null,
        database: { version: expect.stringMatching(/^\d+\.\d+/) },
      });
      await write(user, { content: 'hello' });
      const last = await write(user, { content: 'naïve café' });
      await write(other, { content: 'not mine at all' });
      expect(await info()).toEqual({ ...empty, entries: 2, size_bytes: 5 + 12, last_write_at: last.created_at });
      await request(t.http).delete(`/api/memory/${last.id}`).set('Authorization', user.auth);
      expect(await info()).toMatchObject({ entries: 1, size_bytes: 5 });
    });
  });
});
