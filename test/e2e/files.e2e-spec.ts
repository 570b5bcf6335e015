import { createHash, randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as os from 'node:os';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import request from 'supertest';
import { createTestApp, TestApp, TestUser } from '../setup/test-app';

const MAX_FILE = 64 * 1024;
const MAX_FILES = 6;
const STORAGE_LIMIT = 256 * 1024;
const PREVIEW_CSP = "sandbox; default-src 'none'; img-src 'self' data:; style-src 'unsafe-inline'";
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/** Every object in storage, including partial files in tmp/. */
function storedObjects(t: TestApp): string[] {
  const root = path.join(t.dataDir, 'files');
  if (!fs.existsSync(root)) return [];
  return (fs.readdirSync(root, { recursive: true }) as string[]).filter((p) => fs.statSync(path.join(root, p)).isFile()).sort();
}

async function usage(t: TestApp, teamId: number): Promise<{ storage: number; files: number }> {
  const [row] = await t.dataSource.query(`SELECT usage_storage_bytes AS storage, usage_files_uploaded AS files FROM teams WHERE id = $1`, [
    teamId,
  ]);
  return { storage: Number(row.storage), files: Number(row.files) };
}

async function rowCount(t: TestApp, userId: number): Promise<number> {
  const [row] = await t.dataSource.query(`SELECT count(*)::int AS n FROM files WHERE user_id = $1`, [userId]);
  return row.n;
}

/** Nothing of a failed request may remain: no object (nor partial file), no row, usage unchanged. */
async function expectNothingStored(
  t: TestApp,
  user: TestUser,
  objectsBefore: string[],
  usageBefore = { storage: 0, files: 0 },
): Promise<void> {
  // A part cut off by a broken body is removed as its stream fails, which may finish just after the answer.
  await eventually(() => storedObjects(t).length <= objectsBefore.length, 'partial files to be removed');
  expect(storedObjects(t)).toEqual(objectsBefore);
  expect(await rowCount(t, user.id)).toBe(0);
  expect(await usage(t, user.teamId)).toEqual(usageBefore);
}

async function eventually(check: () => Promise<boolean> | boolean, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('Share uploads and files (local storage)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({
      MAX_UPLOAD_FILE_BYTES: String(MAX_FILE),
      MAX_UPLOAD_FILES: String(MAX_FILES),
      PLAN_LIMITS: JSON.stringify({ Free: { storage_bytes: STORAGE_LIMIT } }),
    });
  });
  afterAll(() => t.close());

  const upload = (user: TestUser) => request(t.http).post('/api/share/files/upload').set('Authorization', user.auth);

  describe('POST /api/share/files/upload', () => {
    it('stores a file and answers with the contract shape, its SHA-256 and usage counted', async () => {
      const user = await t.createUser();
      const content = Buffer.from('%PDF-1.4\n% quarterly numbers\n');
      const res = await upload(user)
        .field('task_type', 'chat')
        .field('message', 'Q3 numbers')
        .field('task_id', 't-1')
        .field('folder', 'reports')
        .attach('file', content, 'q3.pdf');
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        message: 'Q3 numbers',
        task_id: 't-1',
        task_type: 'chat',
        folder: 'reports',
        files: [
          {
            id: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/),
            name: 'q3.pdf',
            size: content.length,
            content_type: 'application/pdf',
            sha256: sha256(content),
            folder: 'reports',
            task_id: 't-1',
            task_type: 'chat',
            preview_url: `/api/files/preview/${res.body.files[0].id}`,
            created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
          },
        ],
      });
      const id: string = res.body.files[0].id;
      // Stored under its id, never under the client's name.
      expect(storedObjects(t)).toContain(path.join(id.slice(0, 2), id));
      expect(fs.readFileSync(path.join(t.dataDir, 'files', id.slice(0, 2), id))).toEqual(content);
      expect(await usage(t, user.teamId)).toEqual({ storage: content.length, files: 1 });
      const [row] = await t.dataSource.query(`SELECT user_id, team_id, size, message FROM files WHERE id = $1`, [id]);
      expect(row).toEqual({ user_id: user.id, team_id: user.teamId, size: String(content.length), message: 'Q3 numbers' });
    });

    it('accepts file parts under file, files, file.<n> and files.<n>.items, in the order sent', async () => {
      const user = await t.createUser();
      const res = await upload(user)
        .attach('file', Buffer.from('a'), 'a.txt')
        .attach('files', Buffer.from('b'), 'b.txt')
        .attach('file.0', Buffer.from('c'), 'c.txt')
        .attach('files.0.items', Buffer.from('d'), 'd.txt')
        .attach('files.12.items', Buffer.from('e'), 'e.txt');
      expect(res.status).toBe(200);
      expect(res.body.files.map((f: { name: string }) => f.name)).toEqual(['a.txt', 'b.txt', 'c.txt', 'd.txt', 'e.txt']);
      expect(res.body.files.map((f: { sha256: string }) => f.sha256)).toEqual(['a', 'b', 'c', 'd', 'e'].map((x) => sha256(Buffer.from(x))));
      expect(await usage(t, user.teamId)).toEqual({ storage: 5, files: 5 });
      expect(await rowCount(t, user.id)).toBe(5);
    });

    it('accepts a repeated part name for several files', async () => {
      const user = await t.createUser();
      const res = await upload(user).attach('files', Buffer.from('one'), 'one.txt').attach('files', Buffer.from('two'), 'two.txt');
      expect(res.status).toBe(200);
      expect(res.body.files.map((f: { name: string }) => f.name)).toEqual(['one.txt', 'two.txt']);
    });

    it('answers null for task_id, task_type and folder when not sent, and "" for message', async () => {
      const user = await t.createUser();
      const res = await upload(user).attach('file', Buffer.from('x'), 'x.txt');
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ message: '', task_id: null, task_type: null, folder: null });
      expect(res.body.files[0]).toMatchObject({ folder: null, task_id: null, task_type: null });
    });

    it('ignores empty text values named file and files', async () => {
      const user = await t.createUser();
      const res = await upload(user).field('file', '').field('files', '').attach('file.0', Buffer.from('x'), 'x.txt');
      expect(res.status).toBe(200);
      expect(res.body.files).toHaveLength(1);
    });

    it('answers 422 "expected a file" for a non-empty text value under a file part name, keeping nothing', async () => {
      const user = await t.createUser();
      const before = storedObjects(t);
      const res = await upload(user).field('file', 'not a file').attach('files', Buffer.from('x'), 'x.txt');
      expect(res.status).toBe(422);
      expect(res.body).toEqual({ detail: [{ loc: ['form', 'file'], msg: 'Value error, expected a file', type: 'value_error' }] });
      await expectNothingStored(t, user, before);
    });

    it('answers 422 missing for a request without any file part', async () => {
      const user = await t.createUser();
      const res = await upload(user).field('task_id', 't-1');
      expect(res.status).toBe(422);
      expect(res.body).toEqual({ detail: [{ loc: ['form', 'file'], msg: 'Field required', type: 'missing' }] });
      await expectNothingStored(t, user, storedObjects(t));
    });

    it('answers 422 for a body that is not multipart', async () => {
      const user = await t.createUser();
      const res = await upload(user).send({ file: 'x' });
      expect(res.status).toBe(422);
      expect(res.body).toEqual({
        detail: [{ loc: ['header', 'content-type'], msg: 'Value error, expected multipart/form-data', type: 'value_error' }],
      });
    });

    it.each([
      ['../escape', 'folder must not contain a ".." segment'],
      ['a/../../b', 'folder must not contain a ".." segment'],
      ['/etc', 'folder must be a relative path (no leading "/")'],
      ['a\\b', 'folder must use "/" as separator (no backslash)'],
      ['a\u0001b', 'folder must not contain control characters'],
      ['a//b', 'folder must not contain empty or "." segments'],
    ])('answers 422 for the folder %p and keeps nothing', async (folder, msg) => {
      const user = await t.createUser();
      const before = storedObjects(t);
      const res = await upload(user).field('folder', folder).attach('file', Buffer.from('data'), 'x.txt');
      expect(res.status).toBe(422);
      expect(res.body).toEqual({ detail: [{ loc: ['form', 'folder'], msg: `Value error, ${msg}`, type: 'value_error' }] });
      await expectNothingStored(t, user, before);
    });

    it('accepts a nested relative folder and drops a trailing slash', async () => {
      const user = await t.createUser();
      const res = await upload(user).field('folder', 'reports/2026/').attach('file', Buffer.from('x'), 'x.txt');
      expect(res.status).toBe(200);
      expect(res.body.folder).toBe('reports/2026');
    });

    it('reports every problem at once: lengths, unknown text and file parts, a missing file', async () => {
      const user = await t.createUser();
      const before = storedObjects(t);
      const res = await upload(user)
        .field('task_type', 'x'.repeat(65))
        .field('task_id', 'y'.repeat(129))
        .field('folder', 'f'.repeat(256))
        .field('colour', 'blue')
        .attach('attachment', Buffer.from('x'), 'x.txt');
      expect(res.status).toBe(422);
      expect(res.body).toEqual({
        detail: [
          { loc: ['form', 'task_type'], msg: 'String should have at most 64 characters', type: 'string_too_long' },
          { loc: ['form', 'task_id'], msg: 'String should have at most 128 characters', type: 'string_too_long' },
          { loc: ['form', 'folder'], msg: 'String should have at most 255 characters', type: 'string_too_long' },
          { loc: ['form', 'colour'], msg: 'Extra inputs are not permitted', type: 'extra_forbidden' },
          { loc: ['form', 'attachment'], msg: 'Extra inputs are not permitted', type: 'extra_forbidden' },
          { loc: ['form', 'file'], msg: 'Field required', type: 'missing' },
        ],
      });
      await expectNothingStored(t, user, before);
    });

    it('accepts text parts at their maximum length', async () => {
      const user = await t.createUser();
      const res = await upload(user)
        .field('task_type', 'é'.repeat(64))
        .field('task_id', 'y'.repeat(128))
        .field('folder', 'f'.repeat(255))
        .attach('file', Buffer.from('x'), 'x.txt');
      expect(res.status).toBe(200);
    });

    it('answers 422 for a text part sent twice', async () => {
      const user = await t.createUser();
      const res = await upload(user).field('task_id', 'a').field('task_id', 'b').attach('file', Buffer.from('x'), 'x.txt');
      expect(res.status).toBe(422);
      expect(res.body.detail).toEqual([
        { loc: ['form', 'task_id'], msg: 'Input should be a valid string (sent once)', type: 'string_type' },
      ]);
    });

    it('answers 413 for a file over MAX_UPLOAD_FILE_BYTES and removes the files stored before it', async () => {
      const user = await t.createUser();
      const before = storedObjects(t);
      const res = await upload(user)
        .attach('file', Buffer.alloc(1000, 1), 'small.bin')
        .attach('file', Buffer.alloc(MAX_FILE + 1, 2), 'big.bin');
      expect(res.status).toBe(413);
      expect(res.body).toEqual({ detail: `File "big.bin" is larger than ${MAX_FILE} bytes (MAX_UPLOAD_FILE_BYTES)` });
      await expectNothingStored(t, user, before);
    });

    it('accepts a file of exactly MAX_UPLOAD_FILE_BYTES', async () => {
      const user = await t.createUser();
      const content = randomBytes(MAX_FILE);
      const res = await upload(user).attach('file', content, 'exact.bin');
      expect(res.status).toBe(200);
      expect(res.body.files[0]).toMatchObject({ size: MAX_FILE, sha256: sha256(content) });
    });

    it('answers 413 for more than MAX_UPLOAD_FILES files and keeps nothing', async () => {
      const user = await t.createUser();
      const before = storedObjects(t);
      let req = upload(user);
      for (let i = 0; i <= MAX_FILES; i++) req = req.attach(`file.${i}`, Buffer.from(`file ${i}`), `f${i}.txt`);
      const res = await req;
      expect(res.status).toBe(413);
      expect(res.body).toEqual({ detail: 'Too many files in one upload (MAX_UPLOAD_FILES)' });
      await expectNothingStored(t, user, before);
    });

    it("answers 402 past the team's storage quota with used as before, and keeps nothing", async () => {
      const user = await t.createUser();
      const first = await upload(user)
        .attach('file', Buffer.alloc(60_000), 'a.bin')
        .attach('file', Buffer.alloc(60_000), 'b.bin')
        .attach('file', Buffer.alloc(60_000), 'c.bin');
      expect(first.status).toBe(200);
      const objects = storedObjects(t);
      const res = await upload(user).attach('file', Buffer.alloc(50_000), 'd.bin').attach('file', Buffer.alloc(50_000), 'e.bin');
      expect(res.status).toBe(402);
      expect(res.body).toEqual({ detail: expect.any(String), quota: 'storage_bytes', limit: STORAGE_LIMIT, used: 180_000 });
      expect(storedObjects(t)).toEqual(objects);
      expect(await rowCount(t, user.id)).toBe(3);
      expect(await usage(t, user.teamId)).toEqual({ storage: 180_000, files: 3 });
      // Exactly up to the limit is allowed.
      const rest = (STORAGE_LIMIT - 180_000) / 2;
      const fits = await upload(user).attach('file', Buffer.alloc(rest), 'f1.bin').attach('file', Buffer.alloc(rest), 'f2.bin');
      expect(fits.status).toBe(200);
      expect(await usage(t, user.teamId)).toEqual({ storage: STORAGE_LIMIT, files: 5 });
    });

    it('lets only one of two concurrent uploads past the quota, keeping nothing of the other', async () => {
      const user = await t.createUser();
      const attempt = () =>
        upload(user)
          .attach('file', Buffer.alloc(60_000), 'a.bin')
          .attach('file', Buffer.alloc(60_000), 'b.bin')
          .attach('file', Buffer.alloc(30_000), 'c.bin');
      const results = await Promise.all([attempt(), attempt()]);
      expect(results.map((r) => r.status).sort()).toEqual([200, 402]);
      expect(await rowCount(t, user.id)).toBe(3);
      expect(await usage(t, user.teamId)).toEqual({ storage: 150_000, files: 3 });
      const [row] = await t.dataSource.query(`SELECT sum(size)::int AS total FROM files WHERE team_id = $1`, [user.teamId]);
      expect(row.total).toBe(150_000);
      const kept = results.find((r) => r.status === 200)!.body.files.map((f: { id: string }) => path.join(f.id.slice(0, 2), f.id));
      await eventually(() => storedObjects(t).filter((o) => o.startsWith('tmp')).length === 0, 'partial files to be removed');
      for (const key of kept) expect(storedObjects(t)).toContain(key);
    });

    it('leaves nothing when the client drops the connection mid-upload', async () => {
      const user = await t.createUser();
      const before = storedObjects(t);
      const { port } = (await listening(t)).address() as AddressInfo;
      const boundary = 'x-boundary-42';
      await new Promise<void>((resolve, reject) => {
        const req = http.request({
          host: '127.0.0.1',
          port,
          method: 'POST',
          path: '/api/share/files/upload',
          headers: {
            Authorization: user.auth,
            'Content-Type': `multipart/form-data; boundary=${boundary}`,
            'Content-Length': String(10 * MAX_FILE),
          },
        });
        // The socket error that follows our own destroy() is expected.
        req.on('error', () => undefined);
        req.write(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="done.txt"\r\n\r\ncomplete\r\n`);
        req.write(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="cut.bin"\r\n\r\n`);
        req.write(Buffer.alloc(MAX_FILE / 2, 7));
        // Vanish once the server has stored the first file and is writing the second.
        const isPartial = (o: string) => o.startsWith('tmp');
        eventually(
          () => storedObjects(t).filter((o) => !isPartial(o)).length === before.length + 1 && storedObjects(t).some(isPartial),
          'the first file stored and the second being written',
        ).then(
          () => {
            req.destroy();
            resolve();
          },
          (err: unknown) => {
            req.destroy();
            reject(err);
          },
        );
      });
      await eventually(() => storedObjects(t).length === before.length, 'the partial upload to be removed');
      await expectNothingStored(t, user, before);
    });

    it.each([
      ['a body cut off inside a part', (b: string) => `--${b}\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\n\r\nabc`],
      ['a malformed part header', (b: string) => `--${b}\r\nContent-Disposition form-data\r\n\r\nabc\r\n--${b}--\r\n`],
      ['garbage', () => 'this is not multipart at all'],
    ])('answers 422 for %s, keeping nothing', async (_what, body) => {
      const user = await t.createUser();
      const before = storedObjects(t);
      const res = await upload(user).set('Content-Type', 'multipart/form-data; boundary=bnd').send(body('bnd'));
      expect(res.status).toBe(422);
      expect(res.body.detail).toEqual([expect.objectContaining({ loc: expect.arrayContaining(['form']), type: expect.any(String) })]);
      await expectNothingStored(t, user, before);
    });

    it('answers 422 for a multipart content type without a boundary', async () => {
      const user = await t.createUser();
      const res = await upload(user).set('Content-Type', 'multipart/form-data').send('x');
      expect(res.status).toBe(422);
      expect(res.body).toEqual({
        detail: [{ loc: ['form'], msg: 'Malformed multipart body: Multipart: Boundary not found', type: 'value_error' }],
      });
    });

    it('does not leak file descriptors on malformed and aborted bodies', async () => {
      const user = await t.createUser();
      const fds = () => fs.readdirSync('/proc/self/fd').length;
      // Warm up once so lazily opened descriptors (pool connections, log files) are already counted.
      await upload(user)
        .set('Content-Type', 'multipart/form-data; boundary=b')
        .send('--b\r\nContent-Disposition: form-data; name="file"; filename="a"\r\n\r\nabc');
      const baseline = fds();
      for (let i = 0; i < 20; i++) {
        const res = await upload(user)
          .set('Content-Type', 'multipart/form-data; boundary=b')
          .send(`--b\r\nContent-Disposition: form-data; name="file"; filename="a${i}"\r\n\r\n${'z'.repeat(1000)}`);
        expect(res.status).toBe(422);
      }
      await eventually(() => fds() <= baseline + 2, 'descriptors to be released');
      expect(await rowCount(t, user.id)).toBe(0);
    });

    it('answers 401 without a token', async () => {
      const res = await request(t.http).post('/api/share/files/upload').attach('file', Buffer.from('x'), 'x.txt');
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ detail: 'Not authenticated' });
    });

    it('round-trips unicode and awkward file names', async () => {
      const user = await t.createUser();
      const names = ['résumé 2026 – 报告.pdf', 'emoji 🎉.txt', 'quote"d.txt', "paren (1) 'x'*.txt", 'C:\\Users\\ada\\win.txt'];
      let req = upload(user);
      for (const [i, name] of names.entries()) req = req.attach(`file.${i}`, Buffer.from(`content ${i}`), name);
      const res = await req;
      expect(res.status).toBe(200);
      expect(res.body.files.map((f: { name: string }) => f.name)).toEqual([
        'résumé 2026 – 报告.pdf',
        'emoji 🎉.txt',
        'quote"d.txt',
        "paren (1) 'x'*.txt",
        'win.txt',
      ]);
      const meta = await request(t.http).get(`/api/files/${res.body.files[0].id}`).set('Authorization', user.auth);
      expect(meta.body.name).toBe('résumé 2026 – 报告.pdf');
      const preview = await request(t.http).get(res.body.files[0].preview_url).set('Authorization', user.auth);
      expect(preview.headers['content-disposition']).toBe(
        `inline; filename="resume 2026 _ __.pdf"; filename*=UTF-8''r%C3%A9sum%C3%A9%202026%20%E2%80%93%20%E6%8A%A5%E5%91%8A.pdf`,
      );
      const quoted = await request(t.http).get(res.body.files[2].preview_url).set('Authorization', user.auth);
      expect(quoted.headers['content-disposition']).toBe(`inline; filename="quote_d.txt"; filename*=UTF-8''quote%22d.txt`);
      const parens = await request(t.http).get(res.body.files[3].preview_url).set('Authorization', user.auth);
      expect(parens.headers['content-disposition']).toBe(
        `inline; filename="paren (1) 'x'*.txt"; filename*=UTF-8''paren%20%281%29%20%27x%27%2A.txt`,
      );
    });
  });

  describe('files API', () => {
    it("lists the caller's files newest first, filtered by task_id and folder, with X-Total-Count", async () => {
      const user = await t.createUser();
      const other = await t.createUser();
      await upload(other).field('task_id', 't-1').attach('file', Buffer.from('other'), 'other.txt');
      const a = await upload(user).field('task_id', 't-1').field('folder', 'reports').attach('file', Buffer.from('a'), 'a.txt');
      const b = await upload(user).field('task_id', 't-2').field('folder', 'reports').attach('file', Buffer.from('b'), 'b.txt');
      const c = await upload(user).field('task_id', 't-1').attach('file', Buffer.from('c'), 'c.txt');

      const all = await request(t.http).get('/api/files').set('Authorization', user.auth);
      expect(all.status).toBe(200);
      expect(all.headers['x-total-count']).toBe('3');
      expect(all.body).toEqual([c.body.files[0], b.body.files[0], a.body.files[0]]);

      const byTask = await request(t.http).get('/api/files?task_id=t-1').set('Authorization', user.auth);
      expect(byTask.body.map((f: { name: string }) => f.name)).toEqual(['c.txt', 'a.txt']);
      expect(byTask.headers['x-total-count']).toBe('2');

      const byFolder = await request(t.http).get('/api/files?folder=reports&task_id=t-2').set('Authorization', user.auth);
      expect(byFolder.body.map((f: { name: string }) => f.name)).toEqual(['b.txt']);

      const page = await request(t.http).get('/api/files?limit=1&offset=1').set('Authorization', user.auth);
      expect(page.body.map((f: { name: string }) => f.name)).toEqual(['b.txt']);
      expect(page.headers['x-total-count']).toBe('3');
    });

    it('answers 422 for a limit above 200', async () => {
      const user = await t.createUser();
      const res = await request(t.http).get('/api/files?limit=201').set('Authorization', user.auth);
      expect(res.status).toBe(422);
      expect(res.body.detail[0]).toMatchObject({ loc: ['query', 'limit'], type: 'value_error' });
    });

    it("returns one file's metadata, the same object as the upload answered", async () => {
      const user = await t.createUser();
      const up = await upload(user).field('folder', 'x').attach('file', Buffer.from('hello'), 'hello.txt');
      const res = await request(t.http).get(`/api/files/${up.body.files[0].id}`).set('Authorization', user.auth);
      expect(res.status).toBe(200);
      expect(res.body).toEqual(up.body.files[0]);
    });

    it('answers 422 uuid_parsing for an id that is not a UUID', async () => {
      const user = await t.createUser();
      for (const url of ['/api/files/123', '/api/files/preview/123']) {
        const res = await request(t.http).get(url).set('Authorization', user.auth);
        expect(res.status).toBe(422);
        expect(res.body).toEqual({ detail: [{ loc: ['path', 'file_id'], msg: 'Input should be a valid UUID', type: 'uuid_parsing' }] });
      }
    });

    it('deletes a file: 200 {id, deleted}, storage object gone, storage usage freed', async () => {
      const user = await t.createUser();
      const keep = await upload(user).attach('file', Buffer.alloc(300, 1), 'keep.bin');
      const up = await upload(user).attach('file', Buffer.alloc(1000, 2), 'gone.bin');
      const id: string = up.body.files[0].id;
      expect(await usage(t, user.teamId)).toEqual({ storage: 1300, files: 2 });
      const res = await request(t.http).delete(`/api/files/${id}`).set('Authorization', user.auth);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ id, deleted: true });
      expect(storedObjects(t)).not.toContain(path.join(id.slice(0, 2), id));
      expect(storedObjects(t)).toContain(path.join(keep.body.files[0].id.slice(0, 2), keep.body.files[0].id));
      // Storage shrinks; the count of uploads does not.
      expect(await usage(t, user.teamId)).toEqual({ storage: 300, files: 2 });
      expect((await request(t.http).get(`/api/files/${id}`).set('Authorization', user.auth)).status).toBe(404);
      expect((await request(t.http).delete(`/api/files/${id}`).set('Authorization', user.auth)).status).toBe(404);
    });

    it("answers 404 File not found for another user's file on metadata, preview, HEAD and delete", async () => {
      const owner = await t.createUser();
      const stranger = await t.createUser();
      const up = await upload(owner).attach('file', Buffer.from('secret'), 'secret.txt');
      const id: string = up.body.files[0].id;
      for (const res of [
        await request(t.http).get(`/api/files/${id}`).set('Authorization', stranger.auth),
        await request(t.http).get(`/api/files/preview/${id}`).set('Authorization', stranger.auth),
        await request(t.http).delete(`/api/files/${id}`).set('Authorization', stranger.auth),
      ]) {
        expect(res.status).toBe(404);
        expect(res.body).toEqual({ detail: 'File not found' });
      }
      const head = await request(t.http).head(`/api/files/preview/${id}`).set('Authorization', stranger.auth);
      expect(head.status).toBe(404);
      const list = await request(t.http).get('/api/files').set('Authorization', stranger.auth);
      expect(list.body).toEqual([]);
      // Still there for its owner.
      expect((await request(t.http).get(`/api/files/preview/${id}`).set('Authorization', owner.auth)).status).toBe(200);
      expect(await rowCount(t, owner.id)).toBe(1);
    });
  });

  describe('GET /api/files/preview/{file_id}', () => {
    let user: TestUser;
    const ids: Record<string, string> = {};
    const bodies: Record<string, Buffer> = {
      png: PNG,
      html: Buffer.from('<!doctype html><html><body><script>alert(document.cookie)</script></body></html>'),
      svg: Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'),
      text: Buffer.from('plain text, naïve café\n'),
      unknown: Buffer.from([0x00, 0x13, 0x37, 0xfe, 0xed, 0xfa, 0xce, 0x01, 0x02]),
      empty: Buffer.alloc(0),
    };
    const names: Record<string, string> = {
      png: 'picture',
      html: 'page.html',
      svg: 'drawing.svg',
      text: 'notes.txt',
      unknown: 'blob',
      empty: 'empty.txt',
    };

    beforeAll(async () => {
      user = await t.createUser();
      let req = upload(user);
      for (const [i, key] of Object.keys(bodies).entries()) req = req.attach(`file.${i}`, bodies[key], names[key]);
      const res = await req;
      expect(res.status).toBe(200);
      for (const [i, key] of Object.keys(bodies).entries()) ids[key] = res.body.files[i].id;
    });

    const preview = (key: string) => request(t.http).get(`/api/files/preview/${ids[key]}`).set('Authorization', user.auth);

    it.each([
      ['png', 'image/png'],
      ['html', 'text/html; charset=utf-8'],
      ['svg', 'image/svg+xml; charset=utf-8'],
      ['text', 'text/plain; charset=utf-8'],
      ['unknown', 'application/octet-stream'],
    ])('serves %s with its detected type and the safety headers', async (key, contentType) => {
      const res = await preview(key)
        .buffer(true)
        .parse((r, cb) => {
          const chunks: Buffer[] = [];
          r.on('data', (c: Buffer) => chunks.push(c));
          r.on('end', () => cb(null, Buffer.concat(chunks)));
        });
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe(contentType);
      expect(res.headers['content-length']).toBe(String(bodies[key].length));
      expect(res.headers['content-disposition']).toBe(`inline; filename="${names[key]}"; filename*=UTF-8''${names[key]}`);
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.headers['content-security-policy']).toBe(PREVIEW_CSP);
      expect(res.headers['etag']).toBe(`"${sha256(bodies[key])}"`);
      expect(res.headers['accept-ranges']).toBe('bytes');
      expect(res.body).toEqual(bodies[key]);
    });

    it('records the detected content type in the metadata (magic bytes win over a missing extension)', async () => {
      const res = await request(t.http).get(`/api/files/${ids.png}`).set('Authorization', user.auth);
      expect(res.body.content_type).toBe('image/png');
    });

    it('serves an empty file', async () => {
      const res = await preview('empty');
      expect(res.status).toBe(200);
      expect(res.headers['content-length']).toBe('0');
    });

    it('answers 304 without a body when If-None-Match matches the ETag', async () => {
      const etag = `"${sha256(bodies.text)}"`;
      for (const header of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
        const res = await preview('text').set('If-None-Match', header);
        expect(res.status).toBe(304);
        expect(res.text ?? '').toBe('');
        expect(res.headers['etag']).toBe(etag);
      }
      expect((await preview('text').set('If-None-Match', '"stale"')).status).toBe(200);
    });

    it('serves single byte ranges with 206 and Content-Range', async () => {
      const text = bodies.text;
      const cases: [string, number, number][] = [
        ['bytes=0-4', 0, 4],
        ['bytes=6-', 6, text.length - 1],
        ['bytes=-5', text.length - 5, text.length - 1],
        ['bytes=3-100000', 3, text.length - 1],
      ];
      for (const [range, start, end] of cases) {
        const res = await preview('text').set('Range', range);
        expect(res.status).toBe(206);
        expect(res.headers['content-range']).toBe(`bytes ${start}-${end}/${text.length}`);
        expect(res.headers['content-length']).toBe(String(end - start + 1));
        expect(Buffer.from(res.text, 'utf8')).toEqual(text.subarray(start, end + 1));
      }
    });

    it('answers 416 with Content-Range bytes */size for an unsatisfiable range', async () => {
      const res = await preview('text').set('Range', `bytes=${bodies.text.length}-`);
      expect(res.status).toBe(416);
      expect(res.headers['content-range']).toBe(`bytes */${bodies.text.length}`);
      expect(res.body).toEqual({ detail: 'Range not satisfiable' });
    });

    it('serves the whole file for several ranges, a malformed range or a stale If-Range', async () => {
      for (const headers of [{ Range: 'bytes=0-1,5-6' }, { Range: 'lines=1-2' }, { Range: 'bytes=0-1', 'If-Range': '"stale"' }]) {
        const res = await preview('text').set(headers);
        expect(res.status).toBe(200);
        expect(res.headers['content-length']).toBe(String(bodies.text.length));
      }
      const current = await preview('text').set({ Range: 'bytes=0-1', 'If-Range': `"${sha256(bodies.text)}"` });
      expect(current.status).toBe(206);
    });

    it('answers HEAD with the headers of GET and no body', async () => {
      const res = await request(t.http).head(`/api/files/preview/${ids.html}`).set('Authorization', user.auth);
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(res.headers['content-length']).toBe(String(bodies.html.length));
      expect(res.headers['content-security-policy']).toBe(PREVIEW_CSP);
      expect(res.headers['etag']).toBe(`"${sha256(bodies.html)}"`);
      expect(res.text ?? '').toBe('');
      const ranged = await request(t.http).head(`/api/files/preview/${ids.html}`).set('Authorization', user.auth).set('Range', 'bytes=0-9');
      expect(ranged.status).toBe(206);
      expect(ranged.headers['content-length']).toBe('10');
    });

    it('answers 404 for a file that does not exist', async () => {
      const res = await request(t.http).get('/api/files/preview/3f0b5c9e-8a3b-4c1e-9a57-2f6f9d1b7e21').set('Authorization', user.auth);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ detail: 'File not found' });
    });
  });

  it('documents the multipart upload and the binary preview in OpenAPI', async () => {
    const res = await request(t.http).get('/docs-json');
    const upload = res.body.paths['/api/share/files/upload'].post;
    const schema = upload.requestBody.content['multipart/form-data'].schema;
    expect(Object.keys(schema.properties)).toEqual([
      'task_type',
      'message',
      'task_id',
      'folder',
      'file',
      'files',
      'file.0',
      'files.0.items',
    ]);
    expect(schema.properties['file.0']).toMatchObject({ type: 'string', format: 'binary' });
    expect(upload.responses['200'].content['application/json'].schema.$ref).toBe('#/components/schemas/UploadResultView');
    expect(Object.keys(upload.responses)).toEqual(expect.arrayContaining(['200', '402', '413', '422', '401']));
    const preview = res.body.paths['/api/files/preview/{file_id}'];
    expect(preview.get.responses['200'].content['*/*'].schema).toEqual({ type: 'string', format: 'binary' });
    expect(Object.keys(preview.get.responses['200'].headers)).toEqual(
      expect.arrayContaining(['Content-Disposition', 'ETag', 'Content-Security-Policy']),
    );
    expect(Object.keys(preview.get.responses)).toEqual(expect.arrayContaining(['200', '206', '304', '404', '416']));
    expect(preview.head).toBeDefined();
  });
});

/** The test app is not listening on a port; raw-socket tests need one. */
async function listening(t: TestApp): Promise<http.Server> {
  if (!t.http.listening) await new Promise<void>((resolve) => t.http.listen(0, '127.0.0.1', () => resolve()));
  return t.http;
}

describe('Partial upload files across restarts', () => {
  it("removes partial files left by a crashed process at start, keeps a live process's, and removes its own at shutdown", async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'apt-files-restart-'));
    const tmp = path.join(dataDir, 'files', 'tmp');
    // 4194304 is above Linux's largest pid: that process cannot be running.
    const crashed = path.join(tmp, `${os.hostname()}-4194304-0badc0de`);
    const alive = path.join(tmp, `${os.hostname()}-${process.pid}-0000beef`);
    const stray = path.join(tmp, 'stray.part');
    fs.mkdirSync(crashed, { recursive: true });
    fs.mkdirSync(alive, { recursive: true });
    fs.writeFileSync(path.join(crashed, 'a.part'), 'partial');
    fs.writeFileSync(path.join(alive, 'b.part'), 'partial');
    fs.writeFileSync(stray, 'partial');
    const t = await createTestApp({ DATA_DIR: dataDir });
    try {
      expect(fs.existsSync(crashed)).toBe(false);
      expect(fs.existsSync(stray)).toBe(false);
      expect(fs.readdirSync(alive)).toEqual(['b.part']);
      const own = fs.readdirSync(tmp).filter((name) => path.join(tmp, name) !== alive);
      expect(own).toEqual([expect.stringMatching(new RegExp(`^${os.hostname()}-${process.pid}-[0-9a-f]{8}$`))]);
      fs.writeFileSync(path.join(tmp, own[0], 'in-flight.part'), 'partial');
    } finally {
      await t.close();
    }
    expect(fs.readdirSync(tmp)).toEqual([path.basename(alive)]);
    fs.rmSync(dataDir, { recursive: true, force: true });
  });
});
