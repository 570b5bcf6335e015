import { CreateBucketCommand, DeleteBucketCommand, HeadObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import S3rver from 's3rver';
import request from 'supertest';
import { createTestApp, TestApp } from '../setup/test-app';

const BUCKET = 'apt-files';
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/** The S3 driver against a real S3-protocol server (s3rver) on a loopback port. */
describe('Share uploads on S3-compatible storage', () => {
  let s3dir: string;
  let s3server: S3rver;
  let endpoint: string;
  let s3: S3Client;
  let t: TestApp;

  const s3env = (bucket: string) => ({
    STORAGE_DRIVER: 's3' as const,
    S3_BUCKET: bucket,
    S3_ENDPOINT: endpoint,
    S3_ACCESS_KEY_ID: 'S3RVER',
    S3_SECRET_ACCESS_KEY: 'S3RVER',
  });

  async function objectKeys(): Promise<string[]> {
    const listed = await s3.send(new ListObjectsV2Command({ Bucket: BUCKET }));
    return (listed.Contents ?? []).map((o) => o.Key ?? '').sort();
  }

  beforeAll(async () => {
    s3dir = fs.mkdtempSync(path.join(os.tmpdir(), 'apt-s3rver-'));
    s3server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory: s3dir, configureBuckets: [{ name: BUCKET }] });
    const { port } = await s3server.run();
    endpoint = `http://127.0.0.1:${port}`;
    s3 = new S3Client({
      region: 'us-east-1',
      endpoint,
      forcePathStyle: true,
      credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
    });
    t = await createTestApp(s3env(BUCKET));
  });

  afterAll(async () => {
    await t?.close();
    s3.destroy();
    await s3server.close();
    fs.rmSync(s3dir, { recursive: true, force: true });
  });

  it('uploads (multipart to S3), previews, serves a range and deletes, leaving nothing on local disk', async () => {
    const user = await t.createUser();
    // Over lib-storage's 8 MiB part size, so the object goes up as an S3 multipart upload.
    const content = randomBytes(9 * 1024 * 1024 + 123);
    const small = Buffer.from('hello from s3\n');
    const up = await request(t.http)
      .post('/api/share/files/upload')
      .set('Authorization', user.auth)
      .attach('file', content, 'big.bin')
      .attach('files.0.items', small, 'hello.txt');
    expect(up.status).toBe(200);
    const [big, hello] = up.body.files;
    expect(big).toMatchObject({ size: content.length, sha256: sha256(content) });
    expect(hello).toMatchObject({ size: small.length, sha256: sha256(small), content_type: 'text/plain' });
    expect(await objectKeys()).toEqual([`files/${big.id.slice(0, 2)}/${big.id}`, `files/${hello.id.slice(0, 2)}/${hello.id}`].sort());
    expect(fs.existsSync(path.join(t.dataDir, 'files'))).toBe(false);

    const whole = await request(t.http)
      .get(big.preview_url)
      .set('Authorization', user.auth)
      .buffer(true)
      .parse((r, cb) => {
        const chunks: Buffer[] = [];
        r.on('data', (c: Buffer) => chunks.push(c));
        r.on('end', () => cb(null, Buffer.concat(chunks)));
      });
    expect(whole.status).toBe(200);
    expect(sha256(whole.body as Buffer)).toBe(sha256(content));

    const text = await request(t.http).get(hello.preview_url).set('Authorization', user.auth);
    expect(text.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(text.text).toBe('hello from s3\n');

    const range = await request(t.http).get(hello.preview_url).set('Authorization', user.auth).set('Range', 'bytes=6-9');
    expect(range.status).toBe(206);
    expect(range.headers['content-range']).toBe(`bytes 6-9/${small.length}`);
    expect(range.text).toBe('from');

    const del = await request(t.http).delete(`/api/files/${big.id}`).set('Authorization', user.auth);
    expect(del.body).toEqual({ id: big.id, deleted: true });
    await expect(s3.send(new HeadObjectCommand({ Bucket: BUCKET, Key: `files/${big.id.slice(0, 2)}/${big.id}` }))).rejects.toMatchObject({
      $metadata: { httpStatusCode: 404 },
    });
    expect(await objectKeys()).toEqual([`files/${hello.id.slice(0, 2)}/${hello.id}`]);
    await request(t.http).delete(`/api/files/${hello.id}`).set('Authorization', user.auth);
  });

  it('removes the objects of an upload that fails validation', async () => {
    const user = await t.createUser();
    const before = await objectKeys();
    const res = await request(t.http)
      .post('/api/share/files/upload')
      .set('Authorization', user.auth)
      .field('folder', '../up')
      .attach('file', Buffer.from('one'), 'one.txt')
      .attach('file', Buffer.from('two'), 'two.txt');
    expect(res.status).toBe(422);
    expect(await objectKeys()).toEqual(before);
  });

  it('answers 500 and keeps no row and no usage when storage fails', async () => {
    await s3.send(new CreateBucketCommand({ Bucket: 'apt-doomed' }));
    const doomed = await createTestApp(s3env('apt-doomed'));
    try {
      const user = await doomed.createUser();
      await s3.send(new DeleteBucketCommand({ Bucket: 'apt-doomed' }));
      const res = await request(doomed.http)
        .post('/api/share/files/upload')
        .set('Authorization', user.auth)
        .attach('file', Buffer.from('x'), 'x.txt');
      expect(res.status).toBe(500);
      expect(res.body).toEqual({ detail: 'Internal Server Error' });
      const [row] = await doomed.dataSource.query(`SELECT count(*)::int AS n FROM files`);
      expect(row.n).toBe(0);
      const [team] = await doomed.dataSource.query(
        `SELECT usage_storage_bytes::int AS s, usage_files_uploaded::int AS f FROM teams WHERE id = $1`,
        [user.teamId],
      );
      expect(team).toEqual({ s: 0, f: 0 });
    } finally {
      await doomed.close();
    }
  });

  it('refuses to start when the bucket does not exist, naming it (the built service, as operators run it)', async () => {
    const main = path.resolve(__dirname, '../../dist/main.js');
    if (!fs.existsSync(main)) throw new Error(`${main} is missing: run "npm run build" (npm test does)`);
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'apt-s3-refusal-'));
    try {
      const { code, output } = await new Promise<{ code: number | null; output: string }>((resolve, reject) => {
        const child = spawn(process.execPath, [main], {
          env: { PATH: process.env.PATH, ...s3env('no-such-bucket'), DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'error' },
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        let output = '';
        child.stdout.on('data', (c: Buffer) => (output += c.toString()));
        child.stderr.on('data', (c: Buffer) => (output += c.toString()));
        const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
        child.on('error', reject);
        child.on('exit', (exitCode) => {
          clearTimeout(timer);
          resolve({ code: exitCode, output });
        });
      });
      expect(code).toBe(1);
      expect(output).toContain('S3 bucket "no-such-bucket" is not usable (it does not exist)');
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  }, 90_000);
});
