import { createHash, randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as path from 'node:path';
import { ServiceProcess, startService } from '../setup/service-process';
import { call, createUser, CreatedUser, PrivatePostgres, serviceEnv, sleep, stopService, tempDir } from './support';

const CHUNK = 1024 * 1024;
const CHUNKS = 48;

/** Every regular file under `dir` (relative paths, with sizes). */
function filesUnder(dir: string): { file: string; size: number }[] {
  if (!fs.existsSync(dir)) return [];
  return (fs.readdirSync(dir, { recursive: true }) as string[])
    .map((f) => ({ file: f, full: path.join(dir, f) }))
    .filter(({ full }) => fs.statSync(full).isFile())
    .map(({ file, full }) => ({ file, size: fs.statSync(full).size }));
}

interface Outcome {
  status?: number;
  body?: string;
  error?: string;
}

/**
 * A multipart upload of CHUNKS MiB written CHUNK by CHUNK every `delayMs`;
 * `onProgress` is told how many chunks have been written.
 */
function slowUpload(url: string, token: string, content: Buffer, delayMs: number, onProgress: (sent: number) => void): Promise<Outcome> {
  const boundary = `----resilience${randomBytes(8).toString('hex')}`;
  const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`);
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  return new Promise((resolve) => {
    let settled = false;
    const done = (o: Outcome) => {
      if (!settled) {
        settled = true;
        resolve(o);
      }
    };
    const req = http.request(`${url}/api/share/files/upload`, {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${token}`,
        'Content-Type': `multipart/form-data; boundary=${boundary}`,
        'Content-Length': head.length + content.length + tail.length,
      },
    });
    req.on('response', (res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.on('end', () => done({ status: res.statusCode, body }));
      res.on('error', (err) => done({ status: res.statusCode, error: err.message }));
    });
    req.on('error', (err) => done({ error: err.message }));
    req.write(head);
    let sent = 0;
    const next = () => {
      if (settled || req.destroyed) return;
      if (sent === CHUNKS) {
        req.end(tail);
        return;
      }
      req.write(content.subarray(sent * CHUNK, (sent + 1) * CHUNK));
      onProgress(++sent);
      setTimeout(next, delayMs);
    };
    next();
  });
}

/**
 * SIGTERM while a large upload is still arriving. Either the request
 * completes (the file is stored, recorded and charged) or it leaves nothing
 * (no row, no bytes under DATA_DIR/files, usage unchanged); the process exits 0
 * either way.
 */
describe('SIGTERM in the middle of an upload', () => {
  let pg: PrivatePostgres;
  const dirs: string[] = [];
  const services: ServiceProcess[] = [];
  const content = randomBytes(CHUNK * CHUNKS);
  const sha256 = createHash('sha256').update(content).digest('hex');

  beforeAll(async () => {
    pg = await PrivatePostgres.start();
  }, 60_000);

  afterAll(async () => {
    for (const svc of services) await stopService(svc);
    if (pg) await pg.destroy();
    for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  async function setUp(database: string, shutdownTimeoutMs: number) {
    const dataDir = tempDir('apt-res-upload-');
    dirs.push(dataDir);
    const env = serviceEnv(await pg.createDatabase(database), dataDir, { SHUTDOWN_TIMEOUT_MS: String(shutdownTimeoutMs) });
    const svc = await startService(env, 40_000);
    services.push(svc);
    const user = await createUser(svc.url, `upload-${database}@example.com`);
    return { env, svc, user, dataDir, q: <T>(sql: string, params: unknown[] = []) => pg.query<T>(sql, params, database) };
  }

  /** Starts the upload and sends SIGTERM once part of it has reached the service's partial file. */
  async function uploadThenTerm(svc: ServiceProcess, user: CreatedUser, dataDir: string, delayMs: number) {
    let sent = 0;
    const outcome = slowUpload(svc.url, user.token, content, delayMs, (n) => (sent = n));
    const deadline = Date.now() + 20_000;
    // The service has written some of it (partial files live under files/tmp).
    while (Date.now() < deadline && !filesUnder(path.join(dataDir, 'files', 'tmp')).some((f) => f.size > 0)) await sleep(20);
    expect(filesUnder(path.join(dataDir, 'files', 'tmp')).some((f) => f.size > 0)).toBe(true);
    const sentAtTerm = sent;
    svc.child.kill('SIGTERM');
    const termAt = Date.now();
    const [result, exit] = await Promise.all([outcome, svc.exited]);
    return { result, exit, sentAtTerm, exitedAfterMs: Date.now() - termAt };
  }

  it('completes the upload in flight when it finishes within SHUTDOWN_TIMEOUT_MS, then exits 0', async () => {
    const { env, svc, user, dataDir, q } = await setUp('complete', 30_000);
    const { result, exit, sentAtTerm, exitedAfterMs } = await uploadThenTerm(svc, user, dataDir, 40);
    process.stdout.write(`upload completes: ${JSON.stringify({ status: result.status, sentAtTerm, chunks: CHUNKS, exitedAfterMs })}\n`);
    expect(sentAtTerm).toBeLessThan(CHUNKS);
    expect(exit).toEqual({ code: 0, signal: null });
    expect(result.error).toBeUndefined();
    expect(result.status).toBe(200);
    const file = (JSON.parse(result.body!) as { files: { id: string; size: number; sha256: string }[] }).files[0];
    expect(file).toEqual(expect.objectContaining({ size: content.length, sha256 }));

    // Stored, recorded, charged; no partial file left.
    const rows = await q<{ id: string; size: string }>('SELECT id, size FROM files');
    expect(rows.map((r) => ({ id: r.id, size: Number(r.size) }))).toEqual([{ id: file.id, size: content.length }]);
    const stored = filesUnder(path.join(dataDir, 'files'));
    expect(stored).toEqual([{ file: expect.stringContaining(file.id), size: content.length }]);
    expect(createHash('sha256').update(fs.readFileSync(path.join(dataDir, 'files', stored[0].file))).digest('hex')).toBe(sha256);

    const again = await startService(env, 40_000);
    services.push(again);
    const team = await call(`${again.url}/api/team`, { auth: user.token });
    expect((team.body as { usage: Record<string, number> }).usage).toEqual(expect.objectContaining({ storage_bytes: content.length, files_uploaded: 1 }));
    const preview = await fetch(`${again.url}/api/files/preview/${file.id}`, { headers: { Authorization: `Bearer ${user.token}` } });
    expect(preview.status).toBe(200);
    expect(createHash('sha256').update(Buffer.from(await preview.arrayBuffer())).digest('hex')).toBe(sha256);
    expect((await stopService(again)).code).toBe(0);
  }, 60_000);

  it('cuts an upload still arriving after SHUTDOWN_TIMEOUT_MS, leaves nothing behind, and exits 0', async () => {
    const { env, svc, user, dataDir, q } = await setUp('cut', 2_000);
    // About 48 × 150 ms = 7 s of upload: well past the 2 s allowed after SIGTERM.
    const { result, exit, sentAtTerm, exitedAfterMs } = await uploadThenTerm(svc, user, dataDir, 150);
    process.stdout.write(`upload cut: ${JSON.stringify({ result, sentAtTerm, chunks: CHUNKS, exitedAfterMs })}\n`);
    expect(exit).toEqual({ code: 0, signal: null });
    expect(result.status === undefined || result.status >= 400).toBe(true);
    expect(exitedAfterMs).toBeLessThan(10_000);

    expect(await q('SELECT id FROM files')).toEqual([]);
    expect(filesUnder(path.join(dataDir, 'files'))).toEqual([]);
    const again = await startService(env, 40_000);
    services.push(again);
    const team = await call(`${again.url}/api/team`, { auth: user.token });
    expect((team.body as { usage: Record<string, number> }).usage).toEqual(expect.objectContaining({ storage_bytes: 0, files_uploaded: 0 }));
    const list = await call(`${again.url}/api/files`, { auth: user.token });
    expect(list.body).toEqual([]);
    expect((await stopService(again)).code).toBe(0);
  }, 60_000);

  it('on the embedded database too: the cut upload leaves nothing, the database closes cleanly, exit 0', async () => {
    const dataDir = tempDir('apt-res-upload-embedded-');
    dirs.push(dataDir);
    // No DATABASE_URL: the embedded PostgreSQL (PGlite) under DATA_DIR.
    const env = serviceEnv('', dataDir, { SHUTDOWN_TIMEOUT_MS: '2000' });
    delete env.DATABASE_URL;
    const svc = await startService(env, 40_000);
    services.push(svc);
    const user = await createUser(svc.url, 'upload-embedded@example.com');
    const { result, exit, exitedAfterMs } = await uploadThenTerm(svc, user, dataDir, 150);
    expect(exit).toEqual({ code: 0, signal: null });
    expect(result.status === undefined || result.status >= 400).toBe(true);
    expect(exitedAfterMs).toBeLessThan(10_000);
    expect(filesUnder(path.join(dataDir, 'files'))).toEqual([]);

    // The embedded database opens again (its lock was released) and holds no trace of the upload.
    const again = await startService(env, 40_000);
    services.push(again);
    const team = await call(`${again.url}/api/team`, { auth: user.token });
    expect((team.body as { usage: Record<string, number> }).usage).toEqual(expect.objectContaining({ storage_bytes: 0, files_uploaded: 0 }));
    expect((await call(`${again.url}/api/files`, { auth: user.token })).body).toEqual([]);
    expect((await stopService(again)).code).toBe(0);
  }, 60_000);
});
