import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { createHash, randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import S3rver from 's3rver';
import { checkoutCompleted, invoice, PaymentEventFixture } from '../factories/payment-events';
import { ServiceProcess, startService } from '../setup/service-process';
import { ADMIN, call, createUser, CreatedUser, deliver, json, pool, PrivatePostgres, serviceEnv, stopService, tempDir } from './support';

const BUCKET = 'apt-resilience';
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const MIGRATIONS = fs.readdirSync(path.resolve(__dirname, '..', '..', 'migrations')).filter((f) => /^\d+-.+\.ts$/.test(f));

/**
 * Two service processes, no proxy in front, one PostgreSQL database and one
 * S3-compatible bucket (s3rver): whatever one instance writes the other sees,
 * and concurrent duplicate webhooks and deletes change state once.
 */
describe('Two instances sharing one PostgreSQL and one S3 bucket', () => {
  let pg: PrivatePostgres;
  let s3server: S3rver;
  let s3: S3Client;
  let endpoint: string;
  const dirs: string[] = [];
  let a: ServiceProcess;
  let b: ServiceProcess;
  let users: CreatedUser[];
  const q = <T = Record<string, unknown>>(sql: string, params: unknown[] = []) => pg.query<T>(sql, params, 'apt');
  const count = async (sql: string, params: unknown[] = []) => Number((await q<{ n: string }>(sql, params))[0].n);

  beforeAll(async () => {
    pg = await PrivatePostgres.start();
    const s3dir = tempDir('apt-res-s3-');
    dirs.push(s3dir);
    s3server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory: s3dir, configureBuckets: [{ name: BUCKET }] });
    endpoint = `http://127.0.0.1:${(await s3server.run()).port}`;
    s3 = new S3Client({ region: 'us-east-1', endpoint, forcePathStyle: true, credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } });
  }, 60_000);

  afterAll(async () => {
    for (const svc of [a, b]) if (svc) await stopService(svc);
    s3?.destroy();
    await s3server?.close();
    if (pg) await pg.destroy();
    for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  const envFor = (databaseUrl: string) => {
    const dataDir = tempDir('apt-res-two-');
    dirs.push(dataDir);
    return serviceEnv(databaseUrl, dataDir, {
      STORAGE_DRIVER: 's3',
      S3_BUCKET: BUCKET,
      S3_ENDPOINT: endpoint,
      S3_ACCESS_KEY_ID: 'S3RVER',
      S3_SECRET_ACCESS_KEY: 'S3RVER',
    });
  };

  it('both start at once on an empty database: migrations run once, one bootstrap admin', async () => {
    const url = await pg.createDatabase('apt');
    [a, b] = await Promise.all([startService(envFor(url), 40_000), startService(envFor(url), 40_000)]);
    for (const svc of [a, b]) expect((await call(`${svc.url}/api/health/ready`)).status).toBe(200);

    const applied = await q<{ name: string; n: string }>('SELECT name, count(*) AS n FROM migrations GROUP BY name ORDER BY name');
    expect(applied).toHaveLength(MIGRATIONS.length);
    expect(applied.every((m) => m.n === '1')).toBe(true);
    expect(await count(`SELECT count(*) AS n FROM users`)).toBe(1);
    expect(await count(`SELECT count(*) AS n FROM teams`)).toBe(1);
    for (const svc of [a, b]) expect((await call(`${svc.url}/api/auth/me`, { auth: ADMIN })).status).toBe(200);
  }, 60_000);

  it('serves interleaved writes from both: each one lands once, and each instance reads what the other wrote', async () => {
    const instances = [a, b];
    const on = (i: number) => instances[i % 2].url;
    users = await pool(Array.from({ length: 6 }, (_, i) => i), 6, (i) => createUser(on(i), `two-${i}@example.com`));
    expect(await count(`SELECT count(*) AS n FROM users WHERE email LIKE 'two-%'`)).toBe(6);

    const PER_USER = 4;
    type Created = { user: number; kind: string; id: number | string; via: number };
    const jobs: { user: number; n: number }[] = [];
    for (let user = 0; user < users.length; user++) for (let n = 0; n < PER_USER; n++) jobs.push({ user, n });

    // Each job: an MCP server on one instance, then an agent using it and a workforce on the other, and a memory entry.
    const created = (
      await pool(jobs, 12, async ({ user, n }) => {
        const token = users[user].token;
        const via = user + n;
        const server = await call(
          `${on(via)}/api/mcp/servers`,
          json('POST', { name: `srv-${user}-${n}`, transport: 'streamable_http', config: { url: `https://mcp${n}.example.com/mcp` } }, token),
        );
        expect(server.status).toBe(201);
        const serverId = (server.body as { id: number }).id;
        const [agent, workforce, memory] = await Promise.all([
          call(`${on(via + 1)}/api/agents`, json('POST', { name: `agent-${user}-${n}`, mcp_server_ids: [serverId] }, token)),
          call(`${on(via + 1)}/api/workforces`, json('POST', { name: `wf-${user}-${n}` }, token)),
          call(`${on(via)}/api/memory`, json('POST', { content: `note ${user}-${n}`, tags: ['two'] }, token)),
        ]);
        for (const res of [agent, workforce, memory]) expect({ status: res.status, body: res.body }).toEqual({ status: 201, body: expect.anything() });
        return [
          { user, kind: 'mcp_servers', id: serverId, via: via % 2 },
          { user, kind: 'agents', id: (agent.body as { id: string }).id, via: (via + 1) % 2 },
          { user, kind: 'workforces', id: (workforce.body as { id: string }).id, via: (via + 1) % 2 },
          { user, kind: 'memory_entries', id: (memory.body as { id: string }).id, via: via % 2 },
        ] as Created[];
      })
    ).flat();

    // Read back on the instance that did NOT write it.
    const paths: Record<string, string> = { mcp_servers: 'mcp/servers', agents: 'agents', workforces: 'workforces', memory_entries: 'memory' };
    const reads = await pool(created, 12, (c) => call(`${on(c.via + 1)}/api/${paths[c.kind]}/${c.id}`, { auth: users[c.user].token }));
    expect(reads.filter((r) => r.status !== 200)).toEqual([]);

    // Half the memory entries deleted through the other instance.
    const memories = created.filter((c) => c.kind === 'memory_entries');
    const doomed = memories.filter((_, i) => i % 2 === 0);
    const deletes = await pool(doomed, 12, (c) => call(`${on(c.via + 1)}/api/memory/${c.id}`, { method: 'DELETE', auth: users[c.user].token }));
    expect(deletes.map((r) => r.status).filter((s) => s !== 200 && s !== 204)).toEqual([]);

    // The database holds exactly what the answers said.
    const userIds = users.map((u) => u.user_id);
    expect(await count('SELECT count(*) AS n FROM mcp_servers WHERE user_id = ANY($1)', [userIds])).toBe(jobs.length);
    expect(await count('SELECT count(*) AS n FROM agents WHERE user_id = ANY($1)', [userIds])).toBe(jobs.length);
    expect(await count('SELECT count(*) AS n FROM agent_mcp_servers')).toBe(jobs.length);
    expect(await count('SELECT count(*) AS n FROM workforces WHERE user_id = ANY($1)', [userIds])).toBe(jobs.length);
    expect(await count('SELECT count(*) AS n FROM memory_entries WHERE user_id = ANY($1)', [userIds])).toBe(memories.length - doomed.length);
    // And both instances list the same thing for every user.
    for (const user of users) {
      for (const listPath of ['mcp/servers', 'agents', 'workforces', 'memory']) {
        const [fromA, fromB] = await Promise.all([a, b].map((svc) => call(`${svc.url}/api/${listPath}?limit=100`, { auth: user.token })));
        expect(fromA.status).toBe(200);
        expect(fromB.body).toEqual(fromA.body);
      }
    }
  }, 60_000);

  it('applies duplicate webhooks delivered to both instances at once exactly once', async () => {
    const periodEnd = (n: number) => 1_800_000_000 + n * 86_400;
    const events: PaymentEventFixture[] = [];
    users.forEach((u, n) => {
      events.push(checkoutCompleted(u.team_id, `sub_two_${n}`, `cus_two_${n}`));
      events.push(invoice('invoice.paid', { subscription: `sub_two_${n}`, customer: `cus_two_${n}`, end: periodEnd(n), metadata: { team_id: String(u.team_id) } }));
    });
    // Every event four times: twice to each instance, all in flight together.
    const deliveries = events.flatMap((event) => [a, b, a, b].map((svc) => ({ event, svc })));
    const answers = await Promise.all(deliveries.map(({ event, svc }) => deliver(svc.url, event)));
    for (const event of events) {
      const mine = answers.filter((_, i) => deliveries[i].event === event);
      expect(mine.map((r) => r.status)).toEqual([200, 200, 200, 200]);
      expect(mine.map((r) => (r.body as { status: string }).status).sort()).toEqual(['already_processed', 'already_processed', 'already_processed', 'ok']);
    }
    const rows = await q<{ event_id: string }>('SELECT event_id FROM processed_events');
    expect(rows.map((r) => r.event_id).sort()).toEqual(events.map((e) => e.id).sort());
    const teams = await q<{ id: number; payment_customer_id: string; payment_subscription_id: string; subscription_status: string; current_period_end: Date }>(
      'SELECT id, payment_customer_id, payment_subscription_id, subscription_status, current_period_end FROM teams WHERE id = ANY($1) ORDER BY id',
      [users.map((u) => u.team_id)],
    );
    expect(teams.map((t) => ({ ...t, current_period_end: t.current_period_end.getTime() }))).toEqual(
      users
        .map((u, n) => ({ id: u.team_id, payment_customer_id: `cus_two_${n}`, payment_subscription_id: `sub_two_${n}`, subscription_status: 'active', current_period_end: periodEnd(n) * 1000 }))
        .sort((x, y) => x.id - y.id),
    );
    expect(await count('SELECT count(*) AS n FROM webhook_failures')).toBe(0);
  }, 60_000);

  it('uploads on one instance, previews and deletes on the other: rows, objects and usage agree', async () => {
    const on = (i: number) => [a, b][i % 2].url;
    type Stored = { user: number; id: string; size: number; sha: string; via: number };
    // Each user: four uploads of two files, alternating instances, all at once; one file over the S3 part size (8 MiB).
    const jobs = users.flatMap((_, user) => [0, 1, 2, 3].map((n) => ({ user, n })));
    const uploaded = (
      await pool(jobs, 8, async ({ user, n }) => {
        const big = user === 0 && n === 0;
        const contents = [randomBytes(big ? 9 * 1024 * 1024 : 20_000 + n * 1000), randomBytes(5_000 + user * 100)];
        const form = new FormData();
        contents.forEach((c, i) => form.append(i === 0 ? 'file' : 'files', new Blob([c]), `f-${user}-${n}-${i}.bin`));
        form.append('folder', 'two');
        const res = await fetch(`${on(user + n)}/api/share/files/upload`, { method: 'POST', headers: { Authorization: `Bearer ${users[user].token}` }, body: form });
        const body = (await res.json()) as { files: { id: string; size: number; sha256: string }[] };
        expect({ status: res.status, files: body.files?.length }).toEqual({ status: 200, files: 2 });
        return body.files.map((f, i) => {
          expect({ size: f.size, sha: f.sha256 }).toEqual({ size: contents[i].length, sha: sha256(contents[i]) });
          return { user, id: f.id, size: f.size, sha: f.sha256, via: (user + n) % 2 } as Stored;
        });
      })
    ).flat();

    // Every file previews, byte for byte, on the instance that did not store it.
    const previews = await pool(uploaded, 8, async (f) => {
      const res = await fetch(`${on(f.via + 1)}/api/files/preview/${f.id}`, { headers: { Authorization: `Bearer ${users[f.user].token}` } });
      return { id: f.id, status: res.status, sha: sha256(Buffer.from(await res.arrayBuffer())) };
    });
    expect(previews).toEqual(uploaded.map((f) => ({ id: f.id, status: 200, sha: f.sha })));

    // Half deleted through the other instance; a quarter deleted on BOTH at once (one 200, one 404).
    const doomed = uploaded.filter((_, i) => i % 2 === 0);
    const raced = doomed.filter((_, i) => i % 2 === 0);
    const deletes = await pool(doomed, 8, async (f) => {
      const targets = raced.includes(f) ? [a.url, b.url] : [on(f.via + 1)];
      const answers = await Promise.all(targets.map((url) => call(`${url}/api/files/${f.id}`, { method: 'DELETE', auth: users[f.user].token })));
      return answers.map((r) => r.status).sort();
    });
    expect(deletes).toEqual(doomed.map((f) => (raced.includes(f) ? [200, 404] : [200])));

    const kept = uploaded.filter((f) => !doomed.includes(f));
    const rows = await q<{ id: string }>('SELECT id FROM files');
    expect(rows.map((r) => r.id).sort()).toEqual(kept.map((f) => f.id).sort());
    const listed = await s3.send(new ListObjectsV2Command({ Bucket: BUCKET }));
    expect((listed.Contents ?? []).map((o) => o.Key).sort()).toEqual(kept.map((f) => `files/${f.id.slice(0, 2)}/${f.id}`).sort());

    // Usage: bytes of the files kept, files counted per upload (deletes do not give files_uploaded back).
    const teams = await q<{ id: number; usage_storage_bytes: string; usage_files_uploaded: string }>(
      'SELECT id, usage_storage_bytes, usage_files_uploaded FROM teams WHERE id = ANY($1) ORDER BY id',
      [users.map((u) => u.team_id)],
    );
    const expected = users
      .map((u, user) => ({
        id: u.team_id,
        usage_storage_bytes: String(kept.filter((f) => f.user === user).reduce((sum, f) => sum + f.size, 0)),
        usage_files_uploaded: String(uploaded.filter((f) => f.user === user).length),
      }))
      .sort((x, y) => x.id - y.id);
    expect(teams).toEqual(expected);
    for (const user of users) {
      const [fromA, fromB] = await Promise.all([a, b].map((svc) => call(`${svc.url}/api/team`, { auth: user.token })));
      expect((fromA.body as { usage: unknown }).usage).toEqual((fromB.body as { usage: unknown }).usage);
    }
  }, 60_000);
});
