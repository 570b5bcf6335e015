import { AgentBody, createAgent, createWorkforce, teamCanvas } from '../factories/agents';
import { createTestApp, TestApp, TestUser } from '../setup/test-app';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const UUID4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const MISSING_ID = '00000000-0000-4000-8000-000000000000';
const pos = { x: 0, y: 0 };

describe('Workforces', () => {
  let t: TestApp;
  let user: TestUser;
  let agent: AgentBody;
  beforeAll(async () => {
    t = await createTestApp();
    user = await t.createUser();
    agent = await createAgent(t, user, { name: 'Researcher' });
  });
  afterAll(() => t.close());

  const api = (u: TestUser) => t.as(u);
  const versionCount = async (id: string) =>
    Number((await t.dataSource.query('SELECT count(*)::int AS n FROM workforce_versions WHERE workforce_id = $1', [id]))[0].n);

  describe('CRUD', () => {
    it('creates a draft workforce with an empty canvas at revision 0', async () => {
      const res = await api(user).post('/api/workforces', { name: 'Market research', description: 'Briefs' });
      expect(res.status).toBe(201);
      expect(res.body).toEqual({
        id: expect.stringMatching(UUID4),
        name: 'Market research',
        description: 'Briefs',
        status: 'draft',
        version: 0,
        has_unpublished_changes: false,
        published_at: null,
        created_at: expect.stringMatching(ISO),
        updated_at: expect.stringMatching(ISO),
      });
      expect(res.headers.location).toBe(`/api/workforces/${res.body.id}`);
      expect((await api(user).get(res.headers.location)).body).toEqual(res.body);
      const canvas = await api(user).get(`/api/workforces/${res.body.id}/canvas`);
      expect(canvas.status).toBe(200);
      expect(canvas.body).toEqual({
        workforce_id: res.body.id,
        revision: 0,
        nodes: [],
        edges: [],
        viewport: { x: 0, y: 0, zoom: 1 },
        updated_at: expect.stringMatching(ISO),
      });
    });

    it('saves a canvas given at creation at revision 1, normalised, and counts it as unpublished', async () => {
      const nodes = [
        { id: 'lead', type: 'coordinator', position: { x: 1.5, y: -2 }, data: { label: 'Lead', nested: { a: [1] } } },
        { id: 'r', type: 'agent', agent_id: agent.id.toUpperCase(), position: { x: 100, y: 0 } },
      ];
      const edges = [{ id: 'e', source: 'lead', target: 'r', data: { kind: 'delegates' } }];
      const res = await api(user).post('/api/workforces', {
        name: 'With canvas',
        canvas: { nodes, edges, viewport: { x: 5, y: 6, zoom: 0.5 } },
      });
      expect(res.status).toBe(201);
      expect(res.body.has_unpublished_changes).toBe(true);
      const canvas = await api(user).get(`/api/workforces/${res.body.id}/canvas`);
      expect(canvas.body).toEqual({
        workforce_id: res.body.id,
        revision: 1,
        nodes: [nodes[0], { ...nodes[1], agent_id: agent.id }],
        edges,
        viewport: { x: 5, y: 6, zoom: 0.5 },
        updated_at: expect.stringMatching(ISO),
      });
    });

    it('answers 422 for an invalid create body, with paths into the canvas', async () => {
      const res = await api(user).post('/api/workforces', {
        description: 'x'.repeat(2001),
        canvas: { nodes: [{ id: 'a', type: 'robot', position: { x: 'left' } }], edges: 'none' },
      });
      expect(res.status).toBe(422);
      expect(res.body.detail).toEqual([
        { loc: ['body', 'name'], msg: 'Field required', type: 'missing' },
        { loc: ['body', 'description'], msg: 'description must be shorter than or equal to 2000 characters', type: 'string_too_long' },
        { loc: ['body', 'canvas', 'nodes', 0, 'type'], msg: expect.any(String), type: 'enum' },
        { loc: ['body', 'canvas', 'nodes', 0, 'position', 'x'], msg: expect.any(String), type: 'int_parsing' },
        { loc: ['body', 'canvas', 'nodes', 0, 'position', 'y'], msg: 'Field required', type: 'missing' },
        { loc: ['body', 'canvas', 'edges'], msg: expect.any(String), type: 'list_type' },
      ]);
    });

    it('patches name and description only, and lists with pagination', async () => {
      const owner = await t.createUser();
      const a = await createWorkforce(t, owner);
      const b = await createWorkforce(t, owner);
      const res = await api(owner).patch(`/api/workforces/${a.id}`, { description: 'New' });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ id: a.id, description: 'New', status: 'draft', version: 0 });
      const bad = await api(owner).patch(`/api/workforces/${a.id}`, { name: '', revision: 3 });
      expect(bad.status).toBe(422);
      expect(bad.body.detail).toEqual([
        { loc: ['body', 'revision'], msg: 'Extra inputs are not permitted', type: 'extra_forbidden' },
        { loc: ['body', 'name'], msg: expect.any(String), type: 'string_too_short' },
      ]);
      const list = await api(owner).get('/api/workforces?limit=1&offset=1');
      expect(list.status).toBe(200);
      expect(list.headers['x-total-count']).toBe('2');
      expect(list.body.map((w: { id: string }) => w.id)).toEqual([b.id]);
    });

    it('deletes a workforce with its versions', async () => {
      const w = await createWorkforce(t, user, teamCanvas([agent.id]));
      expect((await api(user).post(`/api/workforces/${w.id}/publish`)).status).toBe(200);
      const res = await api(user).delete(`/api/workforces/${w.id}`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ id: w.id, deleted: true });
      expect((await api(user).get(`/api/workforces/${w.id}`)).body).toEqual({ detail: 'Workforce not found' });
      expect(await versionCount(w.id)).toBe(0);
    });

    it("answers 404 on every route for another user's workforce and changes nothing", async () => {
      const w = await createWorkforce(t, user, teamCanvas([agent.id]));
      expect((await api(user).post(`/api/workforces/${w.id}/publish`)).status).toBe(200);
      const other = await t.createUser();
      const o = api(other);
      for (const res of [
        await o.get(`/api/workforces/${w.id}`),
        await o.patch(`/api/workforces/${w.id}`, { name: 'Stolen' }),
        await o.get(`/api/workforces/${w.id}/canvas`),
        await o.put(`/api/workforces/${w.id}/canvas`, { nodes: [], edges: [] }),
        await o.post(`/api/workforces/${w.id}/publish`),
        await o.get(`/api/workforces/${w.id}/versions`),
        await o.get(`/api/workforces/${w.id}/versions/1`),
        await o.delete(`/api/workforces/${w.id}`),
      ]) {
        expect(res.status).toBe(404);
        expect(res.body).toEqual({ detail: 'Workforce not found' });
      }
      expect((await o.get('/api/workforces')).body).toEqual([]);
      const canvas = await api(user).get(`/api/workforces/${w.id}/canvas`);
      expect(canvas.body.revision).toBe(1);
      expect(canvas.body.nodes).toHaveLength(2);
    });

    it('answers 422 uuid_parsing for a workforce id that is not a UUID, and int_parsing for a bad version', async () => {
      for (const res of [
        await api(user).get('/api/workforces/abc'),
        await api(user).get('/api/workforces/abc/canvas'),
        await api(user).put('/api/workforces/abc/canvas', { nodes: [], edges: [] }),
        await api(user).post('/api/workforces/abc/publish'),
        await api(user).get('/api/workforces/abc/versions'),
        await api(user).delete('/api/workforces/abc'),
      ]) {
        expect(res.status).toBe(422);
        expect(res.body).toEqual({
          detail: [{ loc: ['path', 'workforce_id'], msg: 'Input should be a valid UUID', type: 'uuid_parsing' }],
        });
      }
      const w = await createWorkforce(t, user);
      const bad = await api(user).get(`/api/workforces/${w.id}/versions/one`);
      expect(bad.status).toBe(422);
      expect(bad.body).toEqual({ detail: [{ loc: ['path', 'version'], msg: 'Input should be a valid integer id', type: 'int_parsing' }] });
      expect((await api(user).get(`/api/workforces/${MISSING_ID}/canvas`)).body).toEqual({ detail: 'Workforce not found' });
      expect((await api(user).get(`/api/workforces/${w.id}/versions/1`)).body).toEqual({ detail: 'Workforce version not found' });
    });
  });

  describe('canvas', () => {
    it('increments the revision on every save and keeps the viewport when omitted', async () => {
      const w = await createWorkforce(t, user);
      const first = await api(user).put(`/api/workforces/${w.id}/canvas`, {
        ...teamCanvas([agent.id]),
        viewport: { x: 1, y: 2, zoom: 3 },
        revision: 0,
      });
      expect(first.status).toBe(200);
      expect(first.body).toEqual({
        workforce_id: w.id,
        revision: 1,
        nodes: teamCanvas([agent.id]).nodes,
        edges: teamCanvas([agent.id]).edges,
        viewport: { x: 1, y: 2, zoom: 3 },
        updated_at: expect.stringMatching(ISO),
      });
      const second = await api(user).put(`/api/workforces/${w.id}/canvas`, { nodes: [], edges: [], revision: 1 });
      expect(second.body).toMatchObject({ revision: 2, nodes: [], edges: [], viewport: { x: 1, y: 2, zoom: 3 } });
      // Without a revision the save is unconditional.
      const third = await api(user).put(`/api/workforces/${w.id}/canvas`, { nodes: [], edges: [] });
      expect(third.body.revision).toBe(3);
      expect((await api(user).get(`/api/workforces/${w.id}/canvas`)).body).toEqual(third.body);
    });

    it('answers 409 for a stale revision and keeps the newer draft', async () => {
      const w = await createWorkforce(t, user, teamCanvas([agent.id]));
      expect((await api(user).put(`/api/workforces/${w.id}/canvas`, { nodes: [], edges: [], revision: 1 })).status).toBe(200);
      const stale = await api(user).put(`/api/workforces/${w.id}/canvas`, { ...teamCanvas([agent.id]), revision: 1 });
      expect(stale.status).toBe(409);
      expect(stale.body).toEqual({ detail: 'Canvas revision conflict: the draft is at revision 2, not 1; reload it and retry' });
      const ahead = await api(user).put(`/api/workforces/${w.id}/canvas`, { ...teamCanvas([agent.id]), revision: 7 });
      expect(ahead.status).toBe(409);
      const canvas = await api(user).get(`/api/workforces/${w.id}/canvas`);
      expect(canvas.body).toMatchObject({ revision: 2, nodes: [], edges: [] });
    });

    it('lets exactly one of several concurrent saves based on one revision win', async () => {
      const w = await createWorkforce(t, user);
      const results = await Promise.all(
        Array.from({ length: 6 }, (_, i) =>
          api(user).put(`/api/workforces/${w.id}/canvas`, {
            nodes: [{ id: `n${i}`, type: 'agent', position: pos }],
            edges: [],
            revision: 0,
          }),
        ),
      );
      expect(results.map((r) => r.status).sort()).toEqual([200, 409, 409, 409, 409, 409]);
      const winner = results.find((r) => r.status === 200)!;
      const canvas = await api(user).get(`/api/workforces/${w.id}/canvas`);
      expect(canvas.body.revision).toBe(1);
      expect(canvas.body.nodes).toEqual(winner.body.nodes);
    });

    it('answers 422 with exact paths for shape errors and changes nothing', async () => {
      const w = await createWorkforce(t, user);
      const res = await api(user).put(`/api/workforces/${w.id}/canvas`, {
        nodes: [
          { id: 'a', type: 'agent', agent_id: 'not-a-uuid', position: { y: 0 }, color: 'red' },
          { id: '', type: 'agent', position: { x: 0, y: 0 }, data: [] },
          7,
        ],
        edges: [{ id: 'e', source: 'a' }],
        viewport: { x: 0, y: 0, zoom: 0 },
        revision: -1,
      });
      expect(res.status).toBe(422);
      expect(res.body.detail).toEqual([
        { loc: ['body', 'revision'], msg: 'revision must not be less than 0', type: 'value_error' },
        { loc: ['body', 'nodes', 0, 'color'], msg: 'Extra inputs are not permitted', type: 'extra_forbidden' },
        { loc: ['body', 'nodes', 0, 'agent_id'], msg: expect.any(String), type: 'uuid_parsing' },
        { loc: ['body', 'nodes', 0, 'position', 'x'], msg: 'Field required', type: 'missing' },
        { loc: ['body', 'nodes', 1, 'id'], msg: expect.any(String), type: 'string_too_short' },
        { loc: ['body', 'nodes', 1, 'data'], msg: expect.any(String), type: 'dict_type' },
        { loc: ['body', 'nodes', 2], msg: expect.any(String), type: 'dict_type' },
        { loc: ['body', 'edges', 0, 'target'], msg: 'Field required', type: 'missing' },
        { loc: ['body', 'viewport', 'zoom'], msg: expect.any(String), type: 'value_error' },
      ]);
      const missing = await api(user).put(`/api/workforces/${w.id}/canvas`, {});
      expect(missing.body.detail).toEqual([
        { loc: ['body', 'nodes'], msg: 'Field required', type: 'missing' },
        { loc: ['body', 'edges'], msg: 'Field required', type: 'missing' },
      ]);
      expect((await api(user).get(`/api/workforces/${w.id}/canvas`)).body.revision).toBe(0);
    });

    it('caps a canvas at 500 nodes and 2000 edges', async () => {
      const w = await createWorkforce(t, user);
      const nodes = Array.from({ length: 501 }, (_, i) => ({ id: `n${i}`, type: 'agent', position: pos }));
      const edges = Array.from({ length: 2001 }, (_, i) => ({ id: `e${i}`, source: 'n0', target: 'n1' }));
      const res = await api(user).put(`/api/workforces/${w.id}/canvas`, { nodes, edges });
      expect(res.status).toBe(422);
      expect(res.body.detail).toEqual([
        { loc: ['body', 'nodes'], msg: expect.any(String), type: 'too_long' },
        { loc: ['body', 'edges'], msg: expect.any(String), type: 'too_long' },
      ]);
      const ok = await api(user).put(`/api/workforces/${w.id}/canvas`, { nodes: nodes.slice(0, 500), edges: edges.slice(0, 2000) });
      expect(ok.status).toBe(200);
    });
  });

  describe('publish', () => {
    const publishCanvas = async (canvas: { nodes: unknown[]; edges: unknown[] }) => {
      const w = await createWorkforce(t, user, canvas);
      return { w, res: await api(user).post(`/api/workforces/${w.id}/publish`) };
    };

    it('stores version 1 with the canvas and agent snapshots and marks the workforce published', async () => {
      const helper = await createAgent(t, user, { name: 'Helper', model: 'gpt-4o' });
      const canvas = teamCanvas([agent.id, helper.id, agent.id]);
      const w = await createWorkforce(t, user, canvas);
      const res = await api(user).post(`/api/workforces/${w.id}/publish`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ id: w.id, status: 'published', version: 1, published_at: expect.stringMatching(ISO), revision: 1 });

      const got = await api(user).get(`/api/workforces/${w.id}`);
      expect(got.body).toMatchObject({
        status: 'published',
        version: 1,
        has_unpublished_changes: false,
        published_at: res.body.published_at,
      });
      const versions = await api(user).get(`/api/workforces/${w.id}/versions`);
      expect(versions.status).toBe(200);
      expect(versions.headers['x-total-count']).toBe('1');
      expect(versions.body).toEqual([{ version: 1, revision: 1, published_at: res.body.published_at }]);
      const version = await api(user).get(`/api/workforces/${w.id}/versions/1`);
      expect(version.status).toBe(200);
      expect(version.body).toEqual({
        workforce_id: w.id,
        version: 1,
        revision: 1,
        published_at: res.body.published_at,
        canvas: { ...canvas, viewport: { x: 0, y: 0, zoom: 1 } },
        agents: [agent, helper],
      });
    });

    it('returns the current version for an unchanged draft, and a new one after a save', async () => {
      const { w, res: first } = await publishCanvas(teamCanvas([agent.id]));
      const again = await api(user).post(`/api/workforces/${w.id}/publish`);
      expect(again.status).toBe(200);
      expect(again.body).toEqual(first.body);
      expect(await versionCount(w.id)).toBe(1);

      await api(user).put(`/api/workforces/${w.id}/canvas`, { ...teamCanvas([agent.id]), revision: 1 });
      expect((await api(user).get(`/api/workforces/${w.id}`)).body).toMatchObject({
        status: 'published',
        version: 1,
        has_unpublished_changes: true,
      });
      const second = await api(user).post(`/api/workforces/${w.id}/publish`);
      expect(second.body).toEqual({ id: w.id, status: 'published', version: 2, published_at: expect.stringMatching(ISO), revision: 2 });
      expect((await api(user).get(`/api/workforces/${w.id}`)).body).toMatchObject({ version: 2, has_unpublished_changes: false });
      const versions = await api(user).get(`/api/workforces/${w.id}/versions`);
      expect(versions.body.map((v: { version: number }) => v.version)).toEqual([2, 1]);
      const paged = await api(user).get(`/api/workforces/${w.id}/versions?limit=1&offset=1`);
      expect(paged.headers['x-total-count']).toBe('2');
      expect(paged.body).toEqual([{ version: 1, revision: 1, published_at: first.body.published_at }]);
    });

    it('creates one version when ten publishes of one draft race', async () => {
      const w = await createWorkforce(t, user, teamCanvas([agent.id]));
      const results = await Promise.all(Array.from({ length: 10 }, () => api(user).post(`/api/workforces/${w.id}/publish`)));
      expect(results.map((r) => r.status)).toEqual(Array(10).fill(200));
      for (const r of results) expect(r.body).toEqual(results[0].body);
      expect(results[0].body.version).toBe(1);
      expect(await versionCount(w.id)).toBe(1);
    });

    it('keeps published versions unchanged when agents are edited later', async () => {
      const editable = await createAgent(t, user, { name: 'Original', instructions: 'v1' });
      const { w } = await publishCanvas(teamCanvas([editable.id]));
      await api(user).patch(`/api/agents/${editable.id}`, { name: 'Renamed', instructions: 'v2' });
      const version = await api(user).get(`/api/workforces/${w.id}/versions/1`);
      expect(version.body.agents).toEqual([editable]);
      // The draft is unchanged, so publishing again does not pick up the edit...
      expect((await api(user).post(`/api/workforces/${w.id}/publish`)).body.version).toBe(1);
      // ...a saved draft does.
      await api(user).put(`/api/workforces/${w.id}/canvas`, teamCanvas([editable.id]));
      await api(user).post(`/api/workforces/${w.id}/publish`);
      const v2 = await api(user).get(`/api/workforces/${w.id}/versions/2`);
      expect(v2.body.agents).toEqual([expect.objectContaining({ id: editable.id, name: 'Renamed', instructions: 'v2' })]);
      expect((await api(user).get(`/api/workforces/${w.id}/versions/1`)).body.agents[0].name).toBe('Original');
    });

    const A = () => agent.id;
    const cases: [string, () => { nodes: unknown[]; edges: unknown[] }, object[]][] = [
      [
        'a canvas without agent nodes',
        () => ({ nodes: [{ id: 'c', type: 'coordinator', position: pos }], edges: [] }),
        [{ loc: ['canvas', 'nodes'], msg: 'A workforce needs at least one agent node', type: 'value_error' }],
      ],
      [
        'duplicate node ids',
        () => ({
          nodes: [
            { id: 'x', type: 'agent', agent_id: A(), position: pos },
            { id: 'x', type: 'agent', agent_id: A(), position: pos },
          ],
          edges: [],
        }),
        [{ loc: ['canvas', 'nodes', 1, 'id'], msg: 'Duplicate node id "x"', type: 'value_error' }],
      ],
      [
        'duplicate edge ids',
        () => ({
          nodes: [
            { id: 'x', type: 'agent', agent_id: A(), position: pos },
            { id: 'y', type: 'agent', agent_id: A(), position: pos },
          ],
          edges: [
            { id: 'e', source: 'x', target: 'y' },
            { id: 'e', source: 'y', target: 'x' },
          ],
        }),
        [{ loc: ['canvas', 'edges', 1, 'id'], msg: 'Duplicate edge id "e"', type: 'value_error' }],
      ],
      [
        'an agent node without agent_id',
        () => ({
          nodes: [
            { id: 'x', type: 'agent', agent_id: A(), position: pos },
            { id: 'y', type: 'agent', position: pos },
          ],
          edges: [],
        }),
        [{ loc: ['canvas', 'nodes', 1, 'agent_id'], msg: 'An agent node needs an agent_id', type: 'missing' }],
      ],
      [
        'an agent that does not exist',
        () => ({ nodes: [{ id: 'x', type: 'agent', agent_id: MISSING_ID, position: pos }], edges: [] }),
        [{ loc: ['canvas', 'nodes', 0, 'agent_id'], msg: `Agent ${MISSING_ID} not found`, type: 'value_error' }],
      ],
      [
        'an edge to a node that does not exist',
        () => ({ nodes: [{ id: 'x', type: 'agent', agent_id: A(), position: pos }], edges: [{ id: 'e', source: 'ghost', target: 'x' }] }),
        [{ loc: ['canvas', 'edges', 0, 'source'], msg: 'Node "ghost" does not exist', type: 'value_error' }],
      ],
      [
        'a self-loop',
        () => ({ nodes: [{ id: 'x', type: 'agent', agent_id: A(), position: pos }], edges: [{ id: 'e', source: 'x', target: 'x' }] }),
        [{ loc: ['canvas', 'edges', 0], msg: 'An edge cannot connect a node to itself', type: 'value_error' }],
      ],
      [
        'a duplicate edge',
        () => ({
          nodes: [
            { id: 'x', type: 'agent', agent_id: A(), position: pos },
            { id: 'y', type: 'agent', agent_id: A(), position: pos },
          ],
          edges: [
            { id: 'e1', source: 'x', target: 'y' },
            { id: 'e2', source: 'x', target: 'y' },
          ],
        }),
        [{ loc: ['canvas', 'edges', 1], msg: 'Duplicate edge from "x" to "y"', type: 'value_error' }],
      ],
      [
        'two coordinators',
        () => ({
          nodes: [
            { id: 'c1', type: 'coordinator', position: pos },
            { id: 'x', type: 'agent', agent_id: A(), position: pos },
            { id: 'c2', type: 'coordinator', position: pos },
          ],
          edges: [],
        }),
        [{ loc: ['canvas', 'nodes', 2, 'type'], msg: 'At most one coordinator node is allowed', type: 'value_error' }],
      ],
    ];

    it.each(cases)('refuses %s with 422 and stores no version', async (_name, canvas, detail) => {
      const { w, res } = await publishCanvas(canvas());
      expect(res.status).toBe(422);
      expect(res.body).toEqual({ detail });
      expect(await versionCount(w.id)).toBe(0);
      expect((await api(user).get(`/api/workforces/${w.id}`)).body).toMatchObject({ status: 'draft', version: 0, published_at: null });
    });

    it("refuses another user's agent as if it did not exist", async () => {
      const other = await t.createUser();
      const theirs = await createAgent(t, other);
      const { res } = await publishCanvas(teamCanvas([theirs.id]));
      expect(res.status).toBe(422);
      expect(res.body).toEqual({
        detail: [{ loc: ['canvas', 'nodes', 1, 'agent_id'], msg: `Agent ${theirs.id} not found`, type: 'value_error' }],
      });
    });

    it('reports every problem at once', async () => {
      const { res } = await publishCanvas({
        nodes: [
          { id: 'c', type: 'coordinator', position: pos },
          { id: 'c', type: 'coordinator', position: pos },
          { id: 'g', type: 'agent', agent_id: MISSING_ID, position: pos },
        ],
        edges: [
          { id: 'e', source: 'c', target: 'c' },
          { id: 'e', source: 'nowhere', target: 'g' },
          { id: 'f', source: 'c', target: 'c' },
        ],
      });
      expect(res.status).toBe(422);
      expect(res.body).toEqual({
        detail: [
          { loc: ['canvas', 'nodes', 1, 'id'], msg: 'Duplicate node id "c"', type: 'value_error' },
          { loc: ['canvas', 'nodes', 1, 'type'], msg: 'At most one coordinator node is allowed', type: 'value_error' },
          { loc: ['canvas', 'nodes', 2, 'agent_id'], msg: `Agent ${MISSING_ID} not found`, type: 'value_error' },
          { loc: ['canvas', 'edges', 0], msg: 'An edge cannot connect a node to itself', type: 'value_error' },
          { loc: ['canvas', 'edges', 1, 'id'], msg: 'Duplicate edge id "e"', type: 'value_error' },
          { loc: ['canvas', 'edges', 1, 'source'], msg: 'Node "nowhere" does not exist', type: 'value_error' },
          { loc: ['canvas', 'edges', 2], msg: 'An edge cannot connect a node to itself', type: 'value_error' },
          { loc: ['canvas', 'edges', 2], msg: 'Duplicate edge from "c" to "c"', type: 'value_error' },
        ],
      });
    });

    it('refuses an empty new workforce', async () => {
      const w = await createWorkforce(t, user);
      const res = await api(user).post(`/api/workforces/${w.id}/publish`);
      expect(res.status).toBe(422);
      expect(res.body).toEqual({
        detail: [{ loc: ['canvas', 'nodes'], msg: 'A workforce needs at least one agent node', type: 'value_error' }],
      });
    });

    it('ignores a body sent to publish', async () => {
      const w = await createWorkforce(t, user, teamCanvas([agent.id]));
      const res = await api(user).post(`/api/workforces/${w.id}/publish`, { version: 9 });
      expect(res.status).toBe(200);
      expect(res.body.version).toBe(1);
    });
  });
});
