import { createAgent, createWorkforce, teamCanvas } from '../factories/agents';
import { createMcpServer } from '../factories/mcp-servers';
import { createTestApp, TestApp, TestUser } from '../setup/test-app';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const UUID4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const MISSING_ID = '00000000-0000-4000-8000-000000000000';

describe('Agents', () => {
  let t: TestApp;
  let user: TestUser;
  beforeAll(async () => {
    t = await createTestApp();
    user = await t.createUser();
  });
  afterAll(() => t.close());

  const api = (u: TestUser) => t.as(u);

  it('creates an agent with defaults, answering 201 with Location, and reads it back', async () => {
    const res = await api(user).post('/api/agents', { name: 'Researcher' });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(UUID4),
      name: 'Researcher',
      description: '',
      instructions: '',
      model: '',
      mcp_server_ids: [],
      created_at: expect.stringMatching(ISO),
      updated_at: res.body.created_at,
    });
    expect(res.headers.location).toBe(`/api/agents/${res.body.id}`);
    const got = await api(user).get(res.headers.location);
    expect(got.status).toBe(200);
    expect(got.body).toEqual(res.body);
  });

  it("keeps every field and the caller's MCP servers in the order sent", async () => {
    const s1 = await createMcpServer(t, user);
    const s2 = await createMcpServer(t, user);
    const body = { name: 'Writer', description: 'Writes briefs', instructions: 'Be concise.', model: 'gpt-4o', mcp_server_ids: [s2, s1] };
    const res = await api(user).post('/api/agents', body);
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject(body);
    const links = await t.dataSource.query('SELECT mcp_server_id FROM agent_mcp_servers WHERE agent_id = $1 ORDER BY position', [
      res.body.id,
    ]);
    expect(links).toEqual([{ mcp_server_id: s2 }, { mcp_server_id: s1 }]);
  });

  it('answers 422 with every problem of an invalid body at once', async () => {
    const res = await api(user).post('/api/agents', { description: 5, model: 'x'.repeat(201), mcp_server_ids: 'a', extra: true });
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual(
      expect.arrayContaining([
        { loc: ['body', 'extra'], msg: 'Extra inputs are not permitted', type: 'extra_forbidden' },
        { loc: ['body', 'name'], msg: 'Field required', type: 'missing' },
        { loc: ['body', 'description'], msg: expect.any(String), type: 'string_type' },
        { loc: ['body', 'model'], msg: expect.any(String), type: 'string_too_long' },
        { loc: ['body', 'mcp_server_ids'], msg: expect.any(String), type: 'list_type' },
      ]),
    );
    expect(res.body.detail).toHaveLength(5);
    expect(await t.dataSource.query('SELECT 1 FROM agents WHERE user_id = $1 AND model = $2', [user.id, 'x'.repeat(201)])).toEqual([]);
  });

  it('refuses an empty or over-long name and a null member', async () => {
    const empty = await api(user).post('/api/agents', { name: '' });
    expect(empty.status).toBe(422);
    expect(empty.body.detail).toEqual([{ loc: ['body', 'name'], msg: expect.any(String), type: 'string_too_short' }]);
    const long = await api(user).post('/api/agents', { name: 'n'.repeat(201) });
    expect(long.body.detail).toEqual([{ loc: ['body', 'name'], msg: expect.any(String), type: 'string_too_long' }]);
    expect((await api(user).post('/api/agents', { name: 'n'.repeat(200) })).status).toBe(201);
    const nulled = await api(user).post('/api/agents', { name: 'ok', description: null });
    expect(nulled.status).toBe(422);
    expect(nulled.body.detail).toEqual([{ loc: ['body', 'description'], msg: expect.any(String), type: 'string_type' }]);
  });

  it("answers 422 at the index of each MCP server id that is not the caller's, unknown or repeated", async () => {
    const other = await t.createUser();
    const mine = await createMcpServer(t, user);
    const theirs = await createMcpServer(t, other);
    const res = await api(user).post('/api/agents', { name: 'x', mcp_server_ids: [mine, theirs, 999999, mine] });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({
      detail: [
        { loc: ['body', 'mcp_server_ids', 1], msg: `MCP server ${theirs} not found`, type: 'value_error' },
        { loc: ['body', 'mcp_server_ids', 2], msg: 'MCP server 999999 not found', type: 'value_error' },
        { loc: ['body', 'mcp_server_ids', 3], msg: `MCP server ${mine} is listed twice`, type: 'value_error' },
      ],
    });
    expect(await t.dataSource.query('SELECT 1 FROM agents WHERE user_id = $1 AND name = $2', [user.id, 'x'])).toEqual([]);
  });

  it('refuses MCP server ids that are not positive integers', async () => {
    const res = await api(user).post('/api/agents', { name: 'x', mcp_server_ids: [1, 'two', 0] });
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual([
      { loc: ['body', 'mcp_server_ids'], msg: 'each value in mcp_server_ids must be a positive integer', type: 'int_parsing' },
    ]);
  });

  it('patches only the members sent, replaces the MCP servers and advances updated_at', async () => {
    const s1 = await createMcpServer(t, user);
    const s2 = await createMcpServer(t, user);
    const agent = await createAgent(t, user, { name: 'Before', instructions: 'Keep me', mcp_server_ids: [s1] });
    await new Promise((r) => setTimeout(r, 5));
    const res = await api(user).patch(`/api/agents/${agent.id}`, { name: 'After', mcp_server_ids: [s2] });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ...agent, name: 'After', mcp_server_ids: [s2], updated_at: expect.stringMatching(ISO) });
    expect(Date.parse(res.body.updated_at)).toBeGreaterThan(Date.parse(agent.updated_at));
    expect((await api(user).get(`/api/agents/${agent.id}`)).body).toEqual(res.body);

    const cleared = await api(user).patch(`/api/agents/${agent.id}`, { mcp_server_ids: [] });
    expect(cleared.body.mcp_server_ids).toEqual([]);
    expect(cleared.body.instructions).toBe('Keep me');
  });

  it('refuses a PATCH that nulls or empties the name, or names a foreign MCP server, and changes nothing', async () => {
    const other = await t.createUser();
    const theirs = await createMcpServer(t, other);
    const agent = await createAgent(t, user, { name: 'Stable' });
    const nulled = await api(user).patch(`/api/agents/${agent.id}`, { name: null });
    expect(nulled.status).toBe(422);
    expect(nulled.body.detail).toEqual([{ loc: ['body', 'name'], msg: expect.any(String), type: 'string_type' }]);
    const foreign = await api(user).patch(`/api/agents/${agent.id}`, { name: 'Changed', mcp_server_ids: [theirs] });
    expect(foreign.status).toBe(422);
    expect(foreign.body.detail).toEqual([
      { loc: ['body', 'mcp_server_ids', 0], msg: `MCP server ${theirs} not found`, type: 'value_error' },
    ]);
    expect((await api(user).get(`/api/agents/${agent.id}`)).body).toEqual(agent);
  });

  it('lists only the caller’s agents, oldest first, with limit, offset and X-Total-Count', async () => {
    const owner = await t.createUser();
    const a = await createAgent(t, owner, { name: 'one' });
    const b = await createAgent(t, owner, { name: 'two' });
    const c = await createAgent(t, owner, { name: 'three' });
    const all = await api(owner).get('/api/agents');
    expect(all.status).toBe(200);
    expect(all.headers['x-total-count']).toBe('3');
    expect(all.body.map((x: { id: string }) => x.id)).toEqual([a.id, b.id, c.id]);
    const page = await api(owner).get('/api/agents?limit=1&offset=1');
    expect(page.headers['x-total-count']).toBe('3');
    expect(page.body).toEqual([b]);
    const tooMany = await api(owner).get('/api/agents?limit=201');
    expect(tooMany.status).toBe(422);
    expect(tooMany.body.detail).toEqual([{ loc: ['query', 'limit'], msg: expect.any(String), type: 'value_error' }]);
    const stranger = await t.createUser();
    const none = await api(stranger).get('/api/agents');
    expect(none.body).toEqual([]);
    expect(none.headers['x-total-count']).toBe('0');
  });

  it("answers 404 on every route for another user's agent and changes nothing", async () => {
    const agent = await createAgent(t, user, { name: 'Private' });
    const other = await t.createUser();
    for (const res of [
      await api(other).get(`/api/agents/${agent.id}`),
      await api(other).patch(`/api/agents/${agent.id}`, { name: 'Stolen' }),
      await api(other).delete(`/api/agents/${agent.id}`),
    ]) {
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ detail: 'Agent not found' });
    }
    expect((await api(user).get(`/api/agents/${agent.id}`)).body).toEqual(agent);
  });

  it('answers 404 for an agent that does not exist and 422 uuid_parsing for an id that is not a UUID', async () => {
    expect((await api(user).get(`/api/agents/${MISSING_ID}`)).body).toEqual({ detail: 'Agent not found' });
    for (const res of [
      await api(user).get('/api/agents/not-a-uuid'),
      await api(user).patch('/api/agents/123', { name: 'x' }),
      await api(user).delete('/api/agents/zzzzzzzz-zzzz-4zzz-8zzz-zzzzzzzzzzzz'),
    ]) {
      expect(res.status).toBe(422);
      expect(res.body).toEqual({ detail: [{ loc: ['path', 'agent_id'], msg: 'Input should be a valid UUID', type: 'uuid_parsing' }] });
    }
  });

  it('deletes an agent with its MCP server links', async () => {
    const s1 = await createMcpServer(t, user);
    const agent = await createAgent(t, user, { mcp_server_ids: [s1] });
    const res = await api(user).delete(`/api/agents/${agent.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: agent.id, deleted: true });
    expect((await api(user).get(`/api/agents/${agent.id}`)).status).toBe(404);
    expect(await t.dataSource.query('SELECT 1 FROM agent_mcp_servers WHERE agent_id = $1', [agent.id])).toEqual([]);
    expect((await api(user).delete(`/api/agents/${agent.id}`)).status).toBe(404);
    // The server itself stays.
    expect(await t.dataSource.query('SELECT id FROM mcp_servers WHERE id = $1', [s1])).toEqual([{ id: s1 }]);
  });

  it('drops a deleted MCP server from the agents that used it', async () => {
    const s1 = await createMcpServer(t, user);
    const s2 = await createMcpServer(t, user);
    const agent = await createAgent(t, user, { mcp_server_ids: [s1, s2] });
    await t.dataSource.query('DELETE FROM mcp_servers WHERE id = $1', [s1]);
    expect((await api(user).get(`/api/agents/${agent.id}`)).body.mcp_server_ids).toEqual([s2]);
  });

  it('answers 409 naming the workforces whose draft uses the agent, and deletes it once they no longer do', async () => {
    const owner = await t.createUser();
    const agent = await createAgent(t, owner);
    const spare = await createAgent(t, owner);
    const w1 = await createWorkforce(t, owner, teamCanvas([agent.id]));
    const w2 = await createWorkforce(t, owner, teamCanvas([spare.id, agent.id]));
    await createWorkforce(t, owner, teamCanvas([spare.id]));

    const blocked = await api(owner).delete(`/api/agents/${agent.id}`);
    expect(blocked.status).toBe(409);
    expect(blocked.body).toEqual({ detail: `Agent is used by workforce(s): ${w1.id}, ${w2.id}` });
    expect((await api(owner).get(`/api/agents/${agent.id}`)).status).toBe(200);

    // Publishing keeps a snapshot; then the drafts stop using the agent, which no longer blocks.
    expect((await api(owner).post(`/api/workforces/${w1.id}/publish`)).status).toBe(200);
    expect((await api(owner).put(`/api/workforces/${w1.id}/canvas`, teamCanvas([spare.id]))).status).toBe(200);
    const stillW2 = await api(owner).delete(`/api/agents/${agent.id}`);
    expect(stillW2.status).toBe(409);
    expect(stillW2.body).toEqual({ detail: `Agent is used by workforce(s): ${w2.id}` });
    expect((await api(owner).delete(`/api/workforces/${w2.id}`)).status).toBe(200);

    const deleted = await api(owner).delete(`/api/agents/${agent.id}`);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ id: agent.id, deleted: true });
    const version = await api(owner).get(`/api/workforces/${w1.id}/versions/1`);
    expect(version.body.agents).toEqual([agent]);
  });

  it("is not blocked by another user's draft that names the agent's id", async () => {
    const agent = await createAgent(t, user);
    const other = await t.createUser();
    await createWorkforce(t, other, teamCanvas([agent.id]));
    expect((await api(user).delete(`/api/agents/${agent.id}`)).status).toBe(200);
  });

  it('matches a draft that wrote the agent id in upper case', async () => {
    const agent = await createAgent(t, user);
    const w = await createWorkforce(t, user, teamCanvas([agent.id.toUpperCase()]));
    const res = await api(user).delete(`/api/agents/${agent.id}`);
    expect(res.status).toBe(409);
    expect(res.body).toEqual({ detail: `Agent is used by workforce(s): ${w.id}` });
  });
});
