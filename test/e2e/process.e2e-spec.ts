import * as fs from 'node:fs';
import * as http from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import Stripe from 'stripe';
import { checkoutCompleted, subscription, WEBHOOK_SECRET } from '../factories/payment-events';
import { childEnv, MAIN, runCli, startService } from '../setup/service-process';

/**
 * The compiled service as a process (`npm test` builds it first): start-up,
 * configuration errors, graceful SIGTERM, the embedded database's persistence
 * and its single-owner lock.
 */
describe('The service process (embedded database)', () => {
  let dataDir: string;
  beforeEach(() => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'apt-proc-'));
  });
  afterEach(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  it('refuses to start on a bad PORT, naming it', () => {
    const res = spawnSync(process.execPath, [MAIN], { env: childEnv({ PORT: 'eighty', DATA_DIR: dataDir }), encoding: 'utf8', timeout: 60_000 });
    expect(res.status).toBe(1);
    expect(res.stderr).toContain('PORT');
    expect(res.stderr).toContain('"eighty"');
  });

  it.each([['RATE_LIMIT_PER_MINUTE', '-5'], ['STORAGE_DRIVER', 'ftp'], ['PLAN_LIMITS', '{"Free":{"bogus":1}}'], ['DATABASE_URL', 'mysql://x']])(
    'refuses to start on a bad %s',
    (name, value) => {
      const res = spawnSync(process.execPath, [MAIN], { env: childEnv({ [name]: value, DATA_DIR: dataDir }), encoding: 'utf8', timeout: 60_000 });
      expect(res.status).toBe(1);
      expect(res.stderr).toContain(name);
    },
  );

  it('prints a bootstrap token on first start that works on /api/auth/me, and not on the next start', async () => {
    const first = await startService({ DATA_DIR: dataDir });
    const token = /shown only this once: (apt_[A-Za-z0-9_-]+)/.exec(first.output())?.[1];
    expect(token).toBeDefined();
    const me = await fetch(`${first.url}/api/auth/me`, { headers: { Authorization: `Bearer ${token}` } });
    expect(me.status).toBe(200);
    expect(await me.json()).toEqual({ user: { id: 1, email: 'admin@localhost', role: 'admin' }, team: { id: 1, name: 'Default', plan: 'Free' } });
    first.child.kill('SIGTERM');
    expect(await first.exited).toEqual({ code: 0, signal: null });

    const second = await startService({ DATA_DIR: dataDir });
    expect(second.output()).not.toContain('shown only this once');
    // Persistence across restarts: the token from the first run still works.
    expect((await fetch(`${second.url}/api/auth/me`, { headers: { Authorization: `Bearer ${token}` } })).status).toBe(200);
    second.child.kill('SIGTERM');
    expect((await second.exited).code).toBe(0);
  }, 180_000);

  it('never prints BOOTSTRAP_ADMIN_TOKEN, and uses it as the admin token', async () => {
    const value = 'apt_bootstrap-secret-value-0123456789abcdef';
    const svc = await startService({ DATA_DIR: dataDir, BOOTSTRAP_ADMIN_TOKEN: value });
    expect((await fetch(`${svc.url}/api/auth/me`, { headers: { Authorization: `Bearer ${value}` } })).status).toBe(200);
    svc.child.kill('SIGTERM');
    await svc.exited;
    expect(svc.output()).not.toContain(value);
  }, 180_000);

  it('on SIGTERM finishes the request in flight, then exits 0', async () => {
    const value = 'apt_bootstrap-secret-value-0123456789abcdef';
    const svc = await startService({ DATA_DIR: dataDir, BOOTSTRAP_ADMIN_TOKEN: value });
    const body = JSON.stringify({ name: 'in-flight' });
    const response = new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = http.request(
        `${svc.url}/api/auth/tokens`,
        { method: 'POST', headers: { Authorization: `Bearer ${value}`, 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) } },
        (res) => {
          let text = '';
          res.on('data', (d: Buffer) => (text += d.toString()));
          res.on('end', () => resolve({ status: res.statusCode!, body: text }));
        },
      );
      req.on('error', reject);
      // Half the body now, SIGTERM, the rest later: the request is in flight when the signal lands.
      req.write(body.slice(0, 5));
      setTimeout(() => {
        svc.child.kill('SIGTERM');
        setTimeout(() => req.end(body.slice(5)), 500);
      }, 300);
    });
    const res = await response;
    expect(res.status).toBe(201);
    expect(JSON.parse(res.body)).toEqual(expect.objectContaining({ name: 'in-flight', token: expect.stringMatching(/^apt_/) }));
    expect(await svc.exited).toEqual({ code: 0, signal: null });
    // New connections are refused once it has stopped.
    await expect(fetch(`${svc.url}/api/health`)).rejects.toThrow();
  }, 180_000);

  it('holds the embedded database: a second instance and the CLI stop at once, saying it is in use', async () => {
    const svc = await startService({ DATA_DIR: dataDir });
    const second = spawnSync(process.execPath, [MAIN], { env: childEnv({ DATA_DIR: dataDir, PORT: '0' }), encoding: 'utf8', timeout: 60_000 });
    expect(second.status).toBe(1);
    expect(second.stderr).toMatch(/in use by another process \(pid \d+\)/);
    const cli = runCli(['token:list', '--email', 'admin@localhost'], { DATA_DIR: dataDir });
    expect(cli.status).toBe(1);
    expect(cli.stdout).toBe('');
    expect(cli.stderr).toMatch(/in use by another process/);
    // Still serving, unharmed.
    expect((await fetch(`${svc.url}/api/health/ready`)).status).toBe(200);
    svc.child.kill('SIGTERM');
    await svc.exited;
  }, 180_000);

  it('is not blocked by the lock of a process that was SIGKILLed', async () => {
    const svc = await startService({ DATA_DIR: dataDir });
    svc.child.kill('SIGKILL');
    expect((await svc.exited).signal).toBe('SIGKILL');
    const cli = runCli(['user:create', '--email', 'after-crash@example.com', '--team-name', 'Crash'], { DATA_DIR: dataDir });
    expect(cli.stderr).not.toMatch(/in use/);
    expect(cli.status).toBe(0);
    // Ids may skip after a crash: PostgreSQL sequences log ahead.
    expect(JSON.parse(cli.stdout)).toEqual({ user_id: expect.any(Number), team_id: expect.any(Number), email: 'after-crash@example.com', role: 'member', token: expect.stringMatching(/^apt_/) });
    const again = await startService({ DATA_DIR: dataDir });
    const res = await fetch(`${again.url}/api/auth/me`, { headers: { Authorization: `Bearer ${JSON.parse(cli.stdout).token}` } });
    expect(res.status).toBe(200);
    again.child.kill('SIGTERM');
    expect((await again.exited).code).toBe(0);
  }, 240_000);
});

describe('The CLI', () => {
  let dataDir: string;
  beforeAll(() => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'apt-cli-'));
  });
  afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  it('creates users and tokens, lists and revokes them, one JSON line each on stdout', () => {
    const user = runCli(['user:create', '--email', 'cli@example.com', '--team-name', 'CLI team'], { DATA_DIR: dataDir });
    expect(user.status).toBe(0);
    expect(user.stdout.trim().split('\n')).toHaveLength(1);
    expect(JSON.parse(user.stdout)).toEqual({ user_id: 2, team_id: 2, email: 'cli@example.com', role: 'member', token: expect.stringMatching(/^apt_/) });

    const admin = runCli(['user:create', '--email', 'root@example.com', '--team-id', '2', '--role', 'admin'], { DATA_DIR: dataDir });
    expect(JSON.parse(admin.stdout)).toEqual(expect.objectContaining({ team_id: 2, role: 'admin' }));

    const token = runCli(['token:create', '--email', 'cli@example.com', '--name', 'deploy', '--expires-in-days', '7'], { DATA_DIR: dataDir });
    expect(token.status).toBe(0);
    const created = JSON.parse(token.stdout) as { token: string; id: number };
    expect(created).toEqual({ token: expect.stringMatching(/^apt_/), id: expect.any(Number) });

    const list = runCli(['token:list', '--email', 'cli@example.com'], { DATA_DIR: dataDir });
    const tokens = JSON.parse(list.stdout) as { id: number; name: string; expires_at: string | null; revoked_at: string | null }[];
    expect(tokens.map((x) => x.name)).toEqual(['default', 'deploy']);
    expect(list.stdout).not.toContain(created.token);

    const revoke = runCli(['token:revoke', '--id', String(created.id)], { DATA_DIR: dataDir });
    expect(JSON.parse(revoke.stdout)).toEqual({ id: created.id, revoked: true });
    const after = JSON.parse(runCli(['token:list', '--email', 'cli@example.com'], { DATA_DIR: dataDir }).stdout) as { revoked_at: string | null }[];
    expect(after[1].revoked_at).not.toBeNull();
  }, 240_000);

  it('fails with a reason on stderr and nothing on stdout', () => {
    const dup = runCli(['user:create', '--email', 'cli@example.com'], { DATA_DIR: dataDir });
    expect(dup.status).toBe(1);
    expect(dup.stdout).toBe('');
    expect(dup.stderr).toContain('already exists');
    const missing = runCli(['token:create'], { DATA_DIR: dataDir });
    expect(missing.status).toBe(1);
    expect(missing.stderr).toContain('--email is required');
    const unknown = runCli(['frobnicate'], { DATA_DIR: dataDir });
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toContain('Unknown command');
  }, 180_000);
});

describe('The CLI for webhook failures', () => {
  let dataDir: string;
  beforeAll(() => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'apt-cli-webhooks-'));
  });
  afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  const post = (url: string, payload: object) => {
    const body = JSON.stringify(payload);
    const signature = Stripe.webhooks.generateTestHeaderString({ payload: body, secret: WEBHOOK_SECRET });
    return fetch(`${url}/api/webhooks/payment`, { method: 'POST', headers: { 'Content-Type': 'application/json', 'payment-signature': signature }, body });
  };

  it('lists a kept failure and replays it, exactly once, after the configuration is fixed', async () => {
    const svc = await startService({ DATA_DIR: dataDir, PAYMENT_WEBHOOK_SECRET: WEBHOOK_SECRET });
    expect((await post(svc.url, checkoutCompleted(1, 'sub_cli', 'cus_cli'))).status).toBe(200);
    const failing = subscription('customer.subscription.updated', { id: 'sub_cli', customer: 'cus_cli', price: 'price_unknown_yet' });
    const res = await post(svc.url, failing);
    expect(res.status).toBe(500);
    expect(await res.json()).toEqual({ detail: 'Webhook handler failed' });
    svc.child.kill('SIGTERM');
    await svc.exited;

    const failures = runCli(['webhooks:failures'], { DATA_DIR: dataDir });
    expect(failures.status).toBe(0);
    const listed = JSON.parse(failures.stdout) as { event_id: string; type: string; error: string }[];
    expect(listed).toEqual([expect.objectContaining({ event_id: failing.id, type: 'customer.subscription.updated', error: expect.stringContaining('price_unknown_yet') })]);

    const stillBroken = runCli(['webhooks:replay', '--id', failing.id], { DATA_DIR: dataDir });
    expect(stillBroken.status).toBe(1);
    expect(stillBroken.stdout).toBe('');
    expect(stillBroken.stderr).toContain('Webhook handler failed');

    const fixed = { DATA_DIR: dataDir, PAYMENT_PRICE_PLANS: 'price_unknown_yet=Pro' };
    const replay = runCli(['webhooks:replay', '--id', failing.id], fixed);
    expect(replay.status).toBe(0);
    expect(JSON.parse(replay.stdout)).toEqual({ status: 'ok' });
    const again = runCli(['webhooks:replay', '--id', failing.id], fixed);
    expect(again.status).toBe(0);
    expect(JSON.parse(again.stdout)).toEqual({ status: 'already_processed' });

    const svc2 = await startService({ DATA_DIR: dataDir, BOOTSTRAP_ADMIN_TOKEN: 'unused-after-first-start-0123456789ab' });
    const token = runCli(['token:create', '--email', 'admin@localhost'], { DATA_DIR: dataDir });
    expect(token.stderr).toMatch(/in use/);
    svc2.child.kill('SIGTERM');
    await svc2.exited;
    const created = JSON.parse(runCli(['token:create', '--email', 'admin@localhost'], { DATA_DIR: dataDir }).stdout) as { token: string };
    const svc3 = await startService({ DATA_DIR: dataDir });
    const team = await fetch(`${svc3.url}/api/team`, { headers: { Authorization: `Bearer ${created.token}` } });
    expect((await team.json()) as { plan: string }).toEqual(expect.objectContaining({ plan: 'Pro', payment_subscription_id: 'sub_cli' }));
    svc3.child.kill('SIGTERM');
    await svc3.exited;
  }, 300_000);

  it('answers a replay of an unknown event id with a reason on stderr', () => {
    const res = runCli(['webhooks:replay', '--id', 'evt_nope'], { DATA_DIR: dataDir });
    expect(res.status).toBe(1);
    expect(res.stderr).toContain('Webhook failure not found');
  }, 180_000);
});
