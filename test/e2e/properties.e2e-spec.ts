import fc from 'fast-check';
import request from 'supertest';
import { createAgent, createWorkforce, teamCanvas } from '../factories/agents';
import {
  Answer,
  anyJson,
  assertContractAnswer,
  fcOptions,
  invalidJsonText,
  malformedMultipart,
  multipartBody,
  nastyString,
  objectFor,
  Operation,
  pathSegment,
  queryValue,
  rawJsonText,
  readOperations,
  REQUEST_TIMEOUT_MS,
  send,
  Sent,
  uploadPart,
  urlFor,
} from '../fuzz/contract';
import { createTestApp, TestApp, TestUser } from '../setup/test-app';

/**
 * Property-based tests of the validation layer (issue 8): every operation of
 * the OpenAPI document, read from the running app, gets random and malformed
 * bodies, path values, query strings and headers. Whatever comes in, the answer
 * is a 2xx the operation documents or an error in the contract's format — never
 * a 500, never a hang — and the process stays healthy.
 */
const WEBHOOK_PATH = '/api/webhooks/payment';
type Form = { test(value: string): boolean };
const INT_ID: Form = { test: (v) => /^\d{1,10}$/.test(v) && Number(v) >= 1 && Number(v) <= 2_147_483_647 };
const UUID: Form = /^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;

describe('Property-based input fuzzing of every OpenAPI operation', () => {
  let t: TestApp;
  let operations: Operation[];
  let member: TestUser;
  /** A valid value (an existing resource of `member`) per path parameter name. */
  let known: Record<string, string>;

  async function setUpMember(): Promise<void> {
    member = await t.createUser();
    const agent = await createAgent(t, member);
    const workforce = await createWorkforce(t, member, teamCanvas([agent.id]));
    const published = await request(t.http).post(`/api/workforces/${workforce.id}/publish`).set('Authorization', member.auth);
    if (published.status !== 200) throw new Error(`publish: ${published.status} ${published.text}`);
    const server = await request(t.http)
      .post('/api/mcp/servers')
      .set('Authorization', member.auth)
      .send({ name: 'fuzz', transport: 'streamable_http', config: { url: 'https://mcp.example.com/mcp' } });
    const memory = await request(t.http).post('/api/memory').set('Authorization', member.auth).send({ content: 'fuzz entry', tags: ['fuzz'] });
    const token = await request(t.http).post('/api/auth/tokens').set('Authorization', member.auth).send({ name: 'spare' });
    const apps = await request(t.http).get('/api/mcp/apps?limit=1').set('Authorization', member.auth);
    const upload = await request(t.http).post('/api/share/files/upload').set('Authorization', member.auth).attach('file', Buffer.from('fuzz'), 'fuzz.txt');
    if (upload.status !== 200) throw new Error(`upload: ${upload.status} ${upload.text}`);
    known = {
      agent_id: agent.id,
      workforce_id: workforce.id,
      version: '1',
      server_id: String(server.body.id),
      memory_id: memory.body.id,
      token_id: String(token.body.id),
      user_id: String(member.id),
      app_id: apps.body[0].id,
      file_id: upload.body.files[0].id,
    };
    for (const [name, value] of Object.entries(known)) if (value === undefined || value === 'undefined') throw new Error(`no ${name}`);
  }

  beforeAll(async () => {
    // Connection tests that random valid input may start give up quickly.
    t = await createTestApp({ MCP_TEST_TIMEOUT_MS: '1000' });
    operations = await readOperations(t.http);
    await setUpMember();
  });
  afterAll(() => t?.close());

  const fuzzed = () => operations.filter((op) => op.path !== WEBHOOK_PATH);
  const authFor = (op: Operation): Record<string, string> =>
    op.secured ? { Authorization: op.path.startsWith('/api/admin') ? t.admin.auth : member.auth } : {};
  /** The form of an id path parameter (integers for users, tokens, MCP servers, versions; UUIDs for the rest), if it is one. */
  const idForm = (op: Operation, name: string): Form | undefined => {
    const schema = op.parameters.find((p) => p.in === 'path' && p.name === name)?.schema;
    if (schema?.type === 'number' || schema?.type === 'integer') return INT_ID;
    if (schema?.format === 'uuid' || (name.endsWith('_id') && name !== 'app_id')) return UUID;
    return undefined;
  };
  const validPath = (op: Operation): Record<string, string> =>
    Object.fromEntries(op.parameters.filter((p) => p.in === 'path').map((p) => [p.name, known[p.name] ?? '1']));

  /** Sends, checks the contract's format and keeps the fuzzing user usable (a random DELETE may revoke its token). */
  async function exchange(sent: Sent, extra?: Parameters<typeof assertContractAnswer>[2]): Promise<Answer> {
    const res = await send(t.http, sent);
    assertContractAnswer(sent, res, extra);
    if (res.status === 401 && sent.headers?.Authorization === member.auth) await setUpMember();
    return res;
  }

  afterEach(async () => {
    // The process stays healthy: it still answers, authenticates and reaches its database.
    const health = await request(t.http).get('/api/health').timeout(REQUEST_TIMEOUT_MS);
    expect(health.status).toBe(200);
    const me = await request(t.http).get('/api/auth/me').set('Authorization', t.admin.auth).timeout(REQUEST_TIMEOUT_MS);
    expect(me.status).toBe(200);
    const ready = await request(t.http).get('/api/health/ready').timeout(REQUEST_TIMEOUT_MS);
    expect(ready.status).toBe(200);
  });

  it('reads every operation from /docs-json (the properties below cover new routes without edits)', () => {
    const ids = operations.map((op) => op.id);
    expect(ids).toEqual(
      expect.arrayContaining(['GET /api/auth/me', 'POST /api/agents', 'PUT /api/workforces/{workforce_id}/canvas', 'POST /api/mcp/test-connection', `POST ${WEBHOOK_PATH}`]),
    );
    expect(operations.filter((op) => op.jsonBody).length).toBeGreaterThanOrEqual(10);
  });

  describe('inputs the properties found answering 500 (now 422)', () => {
    const post = (path: string, body: string) =>
      request(t.http).post(path).set('Authorization', member.auth).set('Content-Type', 'application/json').send(body).timeout(REQUEST_TIMEOUT_MS);

    it('a NUL character in a string or member name (PostgreSQL cannot store it)', async () => {
      const res = await post('/api/auth/tokens', '{"name":"a\\u0000b"}');
      expect(res.status).toBe(422);
      expect(res.body).toEqual({ detail: [{ loc: ['body', 'name'], msg: 'String should not contain NUL characters', type: 'value_error' }] });
      const memory = await post('/api/memory', '{"content":"x","metadata":{"k\\u0000":1}}');
      expect(memory.status).toBe(422);
      expect(memory.body).toEqual({ detail: [{ loc: ['body', 'metadata', 'k\u0000'], msg: 'Member names should not contain NUL characters', type: 'value_error' }] });
      const server = await post('/api/mcp/servers', '{"name":"n","transport":"sse","config":{"url":"https://x.example/\\u0000"}}');
      expect(server.status).toBe(422);
      expect(server.body.detail).toContainEqual({ loc: ['body', 'config', 'url'], msg: expect.stringContaining('NUL characters'), type: 'value_error' });
      const search = await request(t.http).get('/api/memory?q=a%00b').set('Authorization', member.auth);
      expect(search.status).toBe(422);
      expect(search.body).toEqual({ detail: [{ loc: ['query', 'q'], msg: 'String should not contain NUL characters', type: 'value_error' }] });
    });

    it('an offset beyond the database integer range', async () => {
      const res = await request(t.http).get('/api/workforces?offset=99999999999999999999').set('Authorization', member.auth);
      expect(res.status).toBe(422);
      expect(res.body).toEqual({ detail: [{ loc: ['query', 'offset'], msg: expect.any(String), type: 'value_error' }] });
      const largest = await request(t.http).get(`/api/workforces?offset=${Number.MAX_SAFE_INTEGER}`).set('Authorization', member.auth);
      expect(largest.status).toBe(200);
      expect(largest.body).toEqual([]);
    });

    it('a NUL character in an upload text part', async () => {
      for (const part of ['message', 'task_id', 'task_type']) {
        const res = await request(t.http).post('/api/share/files/upload').set('Authorization', member.auth).field(part, 'a\u0000b').attach('file', Buffer.from('x'), 'x.txt');
        expect(res.status).toBe(422);
        expect(res.body).toEqual({ detail: [{ loc: ['form', part], msg: 'String should not contain NUL characters', type: 'value_error' }] });
      }
    });

    it('null for an optional MCP server member (a null name or config reached the service)', async () => {
      const server = known.server_id;
      for (const [member_, type] of [['name', 'string_type'], ['config', 'dict_type'], ['transport', 'enum'], ['is_default', 'bool_type']] as const) {
        const res = await request(t.http).patch(`/api/mcp/servers/${server}`).set('Authorization', member.auth).send({ [member_]: null });
        expect(res.status).toBe(422);
        expect(res.body).toEqual({ detail: [{ loc: ['body', member_], msg: expect.any(String), type }] });
      }
      const unchanged = await request(t.http).get(`/api/mcp/servers/${server}`).set('Authorization', member.auth);
      expect(unchanged.body).toMatchObject({ name: 'fuzz', transport: 'streamable_http', config: { url: 'https://mcp.example.com/mcp' } });
    });

    it('an array where a workforce DTO expects an object (validated as a list of nothing, then crashed the service)', async () => {
      const created = await post('/api/workforces', '{"name":"w","canvas":[]}');
      expect(created.status).toBe(422);
      expect(created.body).toEqual({ detail: [{ loc: ['body', 'canvas'], msg: expect.any(String), type: 'dict_type' }] });
      const saved = await request(t.http)
        .put(`/api/workforces/${known.workforce_id}/canvas`)
        .set('Authorization', member.auth)
        .send({ nodes: [{ id: 'n', type: 'coordinator', position: [] }], edges: [], viewport: [] });
      expect(saved.status).toBe(422);
      expect(saved.body.detail).toEqual(
        expect.arrayContaining([
          { loc: ['body', 'nodes', 0, 'position'], msg: expect.any(String), type: 'dict_type' },
          { loc: ['body', 'viewport'], msg: expect.any(String), type: 'dict_type' },
        ]),
      );
    });

    it('nesting deeper than 64 levels (class-transformer overflowed its stack)', async () => {
      for (const path of ['/api/auth/tokens', '/api/mcp/servers']) {
        const res = await post(path, `{"name":${'['.repeat(100_000)}${']'.repeat(100_000)}}`);
        expect(res.status).toBe(422);
        expect(res.body.detail).toEqual([
          { loc: ['body', 'name', ...Array(63).fill(0)], msg: 'Input should not be nested more than 64 levels deep', type: 'value_error' },
        ]);
      }
      const ok = await post('/api/memory', JSON.stringify({ content: 'deep but fine', metadata: JSON.parse(`${'{"a":'.repeat(60)}1${'}'.repeat(60)}`) }));
      expect(ok.status).toBe(201);
    });

    it("members named like Object.prototype's (class-transformer threw on a nested constructor, dropped the others)", async () => {
      const nested = await post('/api/workforces', '{"name":{"constructor":"x"}}');
      expect(nested.status).toBe(422);
      expect(nested.body).toEqual({ detail: [{ loc: ['body', 'name', 'constructor'], msg: 'Member name "constructor" is not allowed', type: 'value_error' }] });
      const top = await post('/api/workforces', '{"name":"w","constructor":1,"__proto__":{"x":1},"valueOf":2}');
      expect(top.status).toBe(422);
      expect(top.body.detail).toEqual(
        expect.arrayContaining([
          { loc: ['body', 'constructor'], msg: 'Extra inputs are not permitted', type: 'extra_forbidden' },
          { loc: ['body', '__proto__'], msg: 'Extra inputs are not permitted', type: 'extra_forbidden' },
          { loc: ['body', 'valueOf'], msg: 'Extra inputs are not permitted', type: 'extra_forbidden' },
        ]),
      );
      expect(top.body.detail).toHaveLength(3);
      const kept = await post('/api/memory', '{"content":"x","metadata":{"toString":"lost"}}');
      expect(kept.status).toBe(422);
      expect(kept.body).toEqual({ detail: [{ loc: ['body', 'metadata', 'toString'], msg: 'Member name "toString" is not allowed', type: 'value_error' }] });
      const rows: { n: string }[] = await t.dataSource.query('SELECT count(*)::text AS n FROM workforces WHERE user_id = $1', [member.id]);
      expect(rows[0].n).toBe('1');
    });
  });

  it('answers any JSON body (every kind, nested, huge, unicode, NUL, edge numbers) in the contract format', async () => {
    for (const op of fuzzed().filter((o) => o.jsonBody)) {
      await fc.assert(
        fc.asyncProperty(rawJsonText(), async (body) => {
          await exchange({ op, url: urlFor(op, validPath(op)), headers: { ...authFor(op), 'Content-Type': 'application/json' }, body });
        }),
        fcOptions(),
      );
    }
  });

  it("reports wrong types of the DTO's own fields (and unknown members) as 422 items under body", async () => {
    for (const op of fuzzed().filter((o) => o.jsonBody)) {
      await fc.assert(
        fc.asyncProperty(objectFor(op.jsonBody!), async (value) => {
          const sent = { op, url: urlFor(op, validPath(op)), headers: { ...authFor(op), 'Content-Type': 'application/json' }, body: JSON.stringify(value) };
          const res = await exchange(sent);
          if (res.status !== 422) return;
          const items = (res.body as { detail: { loc: unknown[]; msg: string; type: string }[] }).detail;
          expect(items.every((item) => item.loc[0] === 'body')).toBe(true);
          // Input too deep or with a nested reserved member name never reaches the DTO's checks: only that is reported.
          if (items.some((item) => /^(Member name "|Input should not be nested)/.test(item.msg))) return;
          // A member the DTO does not declare is always named as extra_forbidden.
          const declared = Object.keys(op.jsonBody!.properties ?? {});
          for (const key of Object.keys(value).filter((k) => !declared.includes(k))) {
            expect(items).toContainEqual({ loc: ['body', key], msg: 'Extra inputs are not permitted', type: 'extra_forbidden' });
          }
        }),
        fcOptions(),
      );
    }
  });

  it('answers invalid JSON sent as application/json with exactly 422 json_invalid', async () => {
    for (const op of fuzzed().filter((o) => o.jsonBody)) {
      await fc.assert(
        fc.asyncProperty(invalidJsonText(), fc.constantFrom('application/json', 'application/json; charset=utf-8', 'application/merge-patch+json'), async (body, type) => {
          const res = await exchange({ op, url: urlFor(op, validPath(op)), headers: { ...authFor(op), 'Content-Type': type }, body });
          expect(res.status).toBe(422);
          expect(res.body).toEqual({ detail: [{ loc: ['body'], msg: 'Invalid JSON', type: 'json_invalid' }] });
        }),
        fcOptions(),
      );
    }
  });

  it('answers bodies under mismatched or odd content types in the contract format', async () => {
    const types = fc.constantFrom(
      'text/plain',
      'application/x-www-form-urlencoded',
      'multipart/form-data',
      'multipart/form-data; boundary=x',
      'application/xml',
      'application/octet-stream',
      'application/json; charset=utf-16',
      'application/json; charset=latin1',
      'application/json; charset=nonsense',
      'application/jsonx',
      '*/*',
      'garbage',
    );
    for (const op of fuzzed()) {
      await fc.assert(
        fc.asyncProperty(types, rawJsonText(), async (type, body) => {
          await exchange({ op, url: urlFor(op, validPath(op)), headers: { ...authFor(op), 'Content-Type': type }, body });
        }),
        fcOptions(4),
      );
    }
  });

  it('answers random path values (unicode, .., %00, bad escapes, huge, negative, floats, wrong uuids) in the contract format', async () => {
    for (const op of fuzzed().filter((o) => o.parameters.some((p) => p.in === 'path'))) {
      const names = op.parameters.filter((p) => p.in === 'path').map((p) => p.name);
      await fc.assert(
        fc.asyncProperty(fc.constantFrom(...names), pathSegment(), async (name, segment) => {
          const url = urlFor(op, { ...validPath(op), [name]: segment });
          const res = await exchange({ op, url, headers: authFor(op), body: op.jsonBody ? '{}' : undefined });
          // An id of the wrong form never reaches a service.
          let decoded: string | undefined;
          try {
            decoded = decodeURIComponent(segment);
          } catch {
            decoded = undefined;
          }
          const form = idForm(op, name);
          if (form && res.status < 300 && (decoded === undefined || !form.test(decoded))) {
            throw new Error(`${op.id} accepted ${name}=${segment} with ${res.status}`);
          }
          // A single segment of the wrong form is named in the 422 (`..`, `.` and `%2F` change the route instead).
          if (form && decoded !== undefined && !form.test(decoded) && !/^\.\.?$|\//.test(decoded)) {
            expect(res.status).toBe(422);
            expect((res.body as { detail: { loc: unknown[] }[] }).detail).toContainEqual(expect.objectContaining({ loc: ['path', name] }));
          }
        }),
        fcOptions(),
      );
    }
  });

  it('answers random query strings (limit/offset garbage, repeated and unknown keys) in the contract format', async () => {
    for (const op of fuzzed().filter((o) => o.method === 'get')) {
      const names = [...op.parameters.filter((p) => p.in === 'query').map((p) => p.name), 'limit', 'offset', 'x', '__proto__', 'limit[]', 'offset[a]'];
      const pair = fc.tuple(fc.constantFrom(...names), queryValue());
      await fc.assert(
        fc.asyncProperty(fc.array(pair, { minLength: 1, maxLength: 4 }), async (pairs) => {
          const query = pairs.map(([k, v]) => `${encodeURIComponent(k)}=${v}`).join('&');
          const res = await exchange({ op, url: urlFor(op, validPath(op), query), headers: authFor(op) });
          // limit and offset out of their documented range are named in a 422.
          for (const [name, min, max] of [['limit', 1, 200], ['offset', 0, Number.MAX_SAFE_INTEGER]] as const) {
            const given = pairs.filter(([k]) => k === name);
            if (!op.parameters.some((p) => p.in === 'query' && p.name === name) || given.length !== 1) continue;
            let value: number;
            try {
              value = Number(decodeURIComponent(given[0][1]));
            } catch {
              value = NaN;
            }
            if (!(Number.isInteger(value) && value >= min && value <= max)) {
              expect(res.status).toBe(422);
              expect((res.body as { detail: { loc: unknown[] }[] }).detail).toContainEqual(expect.objectContaining({ loc: ['query', name] }));
            }
          }
        }),
        fcOptions(),
      );
    }
  });

  describe('multipart bodies', () => {
    const BOUNDARY = 'fuzz-boundary-7MA4YWxkTrZu0gW';
    const formOps = () => operations.filter((o) => o.formBody);
    const fileRows = async (): Promise<number> => {
      const rows: { n: string }[] = await t.dataSource.query('SELECT count(*)::text AS n FROM files WHERE user_id = $1', [member.id]);
      return Number(rows[0].n);
    };

    it('the document has the upload operation', () => {
      expect(formOps().map((op) => op.id)).toContain('POST /api/share/files/upload');
    });

    // Half the forms carry one well-formed file, so the text parts' checks and storage are reached.
    const validFile = fc.constantFrom({ name: 'file', filename: 'ok.txt', contentType: 'text/plain', data: Buffer.from('ok') });

    it('answers random forms (names, filenames, values, types) in the contract format, all or nothing', async () => {
      for (const op of formOps()) {
        await fc.assert(
          fc.asyncProperty(fc.option(validFile, { freq: 3 }), fc.array(uploadPart(), { maxLength: 5 }), async (file, others) => {
            const parts = file ? [file, ...others] : others;
            const before = await fileRows();
            const sent = {
              op,
              url: urlFor(op, validPath(op)),
              headers: { ...authFor(op), 'Content-Type': `multipart/form-data; boundary=${BOUNDARY}` },
              body: multipartBody(parts, BOUNDARY),
            };
            const res = await exchange(sent);
            const stored = (await fileRows()) - before;
            if (res.status === 200) {
              expect(stored).toBe((res.body as { files: unknown[] }).files.length);
            } else {
              expect(stored).toBe(0);
            }
            if (res.status === 422) {
              const items = (res.body as { detail: { loc: unknown[] }[] }).detail;
              expect(items.every((item) => item.loc[0] === 'form' || item.loc[0] === 'header')).toBe(true);
            }
          }),
          fcOptions(3 * Number(process.env.FUZZ_RUNS ?? 8)),
        );
      }
    });

    it('answers malformed multipart bodies with a 4xx in the contract format, storing nothing', async () => {
      for (const op of formOps()) {
        await fc.assert(
          fc.asyncProperty(malformedMultipart(BOUNDARY), async (body) => {
            const before = await fileRows();
            const res = await exchange({
              op,
              url: urlFor(op, validPath(op)),
              headers: { ...authFor(op), 'Content-Type': `multipart/form-data; boundary=${BOUNDARY}` },
              body,
            });
            if (res.status === 200) return; // noise that happens to be a valid form
            expect(res.status).toBeGreaterThanOrEqual(400);
            expect(await fileRows()).toBe(before);
          }),
          fcOptions(2 * Number(process.env.FUZZ_RUNS ?? 8)),
        );
      }
    });

    it('answers non-multipart bodies and broken content types with 422 in the contract format', async () => {
      const type = fc.constantFrom(
        'application/json',
        'text/plain',
        'application/x-www-form-urlencoded',
        'multipart/form-data',
        'multipart/form-data; boundary=',
        'multipart/form-data; boundary="unterminated',
        `multipart/form-data; boundary=${'b'.repeat(200)}`,
        'multipart/mixed; boundary=x',
        'garbage',
      );
      for (const op of formOps()) {
        await fc.assert(
          fc.asyncProperty(type, rawJsonText(), async (contentType, body) => {
            const res = await exchange({ op, url: urlFor(op, validPath(op)), headers: { ...authFor(op), 'Content-Type': contentType }, body });
            expect(res.status).toBeGreaterThanOrEqual(400);
          }),
          fcOptions(),
        );
      }
    });
  });

  it('answers 401 in the contract format to any malformed or unknown Authorization header', async () => {
    const header = fc.oneof(
      fc.constantFrom('', 'Bearer', 'Bearer ', 'bearer', 'Basic YWRtaW46YWRtaW4=', 'Bearer apt_', 'Bearer  apt_x', 'Token apt_x', `Bearer ${'a'.repeat(8000)}`),
      fc.string({ unit: 'binary-ascii', maxLength: 80 }).filter((s) => /^[\x20-\x7e]*$/.test(s)),
      fc.string({ unit: 'binary-ascii', maxLength: 80 }).filter((s) => /^[\x21-\x7e]*$/.test(s)).map((s) => `Bearer ${s}`),
    );
    for (const op of fuzzed().filter((o) => o.secured)) {
      await fc.assert(
        fc.asyncProperty(header, async (value) => {
          const res = await exchange({ op, url: urlFor(op, validPath(op)), headers: { Authorization: value } });
          expect(res.status).toBe(401);
          expect(['Not authenticated', 'Invalid or expired token']).toContain((res.body as { detail: string }).detail);
        }),
        fcOptions(4),
      );
    }
  });

  it('answers random header values (Accept, X-Request-Id, content-length games) in the contract format', async () => {
    const headers = fc.record(
      {
        Accept: fc.constantFrom('*/*', 'text/html', 'application/xml', 'garbage', ''),
        'X-Request-Id': fc.string({ unit: 'binary-ascii', maxLength: 200 }).filter((s) => /^[\x20-\x7e]*$/.test(s)),
        'Accept-Encoding': fc.constantFrom('gzip', 'br', 'identity;q=0', 'nonsense'),
        'If-None-Match': fc.constantFrom('*', '"x"', 'W/"1"', ''),
        Range: fc.constantFrom('bytes=0-0', 'bytes=-1', 'bytes=9999999999999999999-', 'garbage'),
      },
      { requiredKeys: [] },
    );
    for (const op of fuzzed()) {
      await fc.assert(
        fc.asyncProperty(headers, anyJson(), async (h, body) => {
          await exchange({
            op,
            url: urlFor(op, validPath(op)),
            headers: { ...authFor(op), ...h, ...(op.jsonBody ? { 'Content-Type': 'application/json' } : {}) },
            body: op.jsonBody ? JSON.stringify(body) ?? 'null' : undefined,
          });
        }),
        fcOptions(3),
      );
    }
  });

  it('keeps the unknown-route answer for random paths under /api', async () => {
    const segments = fc.array(fc.oneof(pathSegment(), nastyString().filter((s) => s.length < 1000).map((s) => encodeURIComponent(s.replace(/[\ud800-\udfff]/g, '?')))), { minLength: 1, maxLength: 4 });
    const anyOp: Operation = { method: 'get', path: '/api', id: 'unknown', parameters: [], responses: [], secured: false };
    await fc.assert(
      fc.asyncProperty(fc.constantFrom<Operation['method']>('get', 'post', 'put', 'patch', 'delete'), segments, async (method, parts) => {
        const url = `/api/zz-${parts.join('/')}`;
        const res = await exchange({ op: { ...anyOp, method }, url, headers: { Authorization: member.auth } });
        expect(res.status === 404 || res.status === 400).toBe(true);
      }),
      fcOptions(30),
    );
  });
});
