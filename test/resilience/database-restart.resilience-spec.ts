import * as fs from 'node:fs';
import { ServiceProcess, startService } from '../setup/service-process';
import { ADMIN, call, PrivatePostgres, serviceEnv, sleep, stopService, tempDir, Timed } from './support';

/**
 * The service's PostgreSQL server is stopped and started again (twice: a
 * clean `fast` stop, then an `immediate` one, like a crash) while requests
 * keep flowing. The server is a private one of this test: the machine's shared
 * cluster is never touched.
 */
describe('PostgreSQL restarted while requests flow', () => {
  let pg: PrivatePostgres;
  let svc: ServiceProcess;
  let dataDir: string;

  beforeAll(async () => {
    pg = await PrivatePostgres.start();
    dataDir = tempDir('apt-res-restart-');
    svc = await startService(serviceEnv(pg.url(), dataDir), 40_000);
  }, 60_000);

  afterAll(async () => {
    if (svc) await stopService(svc);
    if (pg) await pg.destroy();
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  }, 60_000);

  it('answers 200 or a quick 503 throughout, keeps /api/health at 200, and recovers without a restart', async () => {
    type Sample = Timed & { path: string; phase: string; at: number };
    const samples: Sample[] = [];
    let phase = 'before';
    let running = true;
    const t0 = performance.now();

    // Four clients in a loop on two authenticated routes, and one probe on the two health routes.
    const client = async (path: string) => {
      while (running) {
        const res = await call(`${svc.url}${path}`, { auth: ADMIN });
        samples.push({ ...res, path, phase, at: performance.now() - t0 });
        if (res.status !== 200) await sleep(20);
      }
    };
    const probe = async (path: string) => {
      while (running) {
        const res = await call(`${svc.url}${path}`);
        samples.push({ ...res, path, phase, at: performance.now() - t0 });
        await sleep(100);
      }
    };
    const loops = [client('/api/auth/me'), client('/api/mcp/apps'), client('/api/auth/me'), client('/api/mcp/apps'), probe('/api/health'), probe('/api/health/ready')];

    const waitReady = async () => {
      const deadline = Date.now() + 20_000;
      while (Date.now() < deadline) {
        const last = samples.filter((s) => s.path === '/api/health/ready').at(-1);
        const lastMe = samples.filter((s) => s.path === '/api/auth/me').at(-1);
        if (last?.status === 200 && lastMe?.status === 200) return;
        await sleep(100);
      }
      throw new Error('not ready again within 20 s');
    };

    const outages: { mode: 'fast' | 'immediate'; recoveredMs: number }[] = [];
    try {
      await sleep(1500);
      for (const mode of ['fast', 'immediate'] as const) {
        phase = `down-${mode}`;
        await pg.stopServer(mode);
        await sleep(3000);
        phase = `restarting-${mode}`;
        const restarted = performance.now();
        await pg.startServer();
        await waitReady();
        outages.push({ mode, recoveredMs: Math.round(performance.now() - restarted) });
        phase = `after-${mode}`;
        await sleep(1500);
      }
    } finally {
      running = false;
      await Promise.all(loops);
    }

    const api = samples.filter((s) => !s.path.startsWith('/api/health'));
    const ready = samples.filter((s) => s.path === '/api/health/ready');
    const live = samples.filter((s) => s.path === '/api/health');
    const summary = {
      requests: api.length,
      unavailable: api.filter((s) => s.status === 503).length,
      slowestMs: Math.round(Math.max(...samples.map((s) => s.ms))),
      slowest503Ms: Math.round(Math.max(0, ...samples.filter((s) => s.status === 503).map((s) => s.ms))),
      outages,
    };
    process.stdout.write(`database restart: ${JSON.stringify(summary)}\n`);

    // Never anything but 200 or the contract's 503, never a hang.
    const unavailable = JSON.stringify({ detail: 'Service unavailable' });
    const expected = (s: Sample) => s.status === 200 || (s.status === 503 && JSON.stringify(s.body) === unavailable);
    const odd = samples.filter((s) => !expected(s));
    expect(odd.map((s) => ({ path: s.path, status: s.status, body: s.body, phase: s.phase }))).toEqual([]);
    expect(samples.filter((s) => s.ms > 2500).map((s) => ({ path: s.path, ms: Math.round(s.ms), phase: s.phase }))).toEqual([]);
    // The outage was seen: authenticated requests and readiness answered 503 while the server was down.
    for (const mode of ['fast', 'immediate']) {
      expect(api.filter((s) => s.phase === `down-${mode}` && s.status === 503).length).toBeGreaterThan(0);
      expect(ready.filter((s) => s.phase === `down-${mode}` && s.status === 503).length).toBeGreaterThan(0);
    }
    // Before the first outage and after each recovery: everything 200.
    expect(samples.filter((s) => ['before', 'after-fast', 'after-immediate'].includes(s.phase) && s.status !== 200)).toEqual([]);
    // Liveness never depended on the database.
    expect(live.length).toBeGreaterThan(20);
    expect(live.every((s) => s.status === 200)).toBe(true);
    // Readiness went 200 → 503 → 200 twice.
    const transitions = ready.map((s) => s.status).filter((status, i, all) => i === 0 || status !== all[i - 1]);
    expect(transitions).toEqual([200, 503, 200, 503, 200]);
    // The same process throughout.
    expect(svc.child.exitCode).toBeNull();
    expect(svc.child.signalCode).toBeNull();
  }, 60_000);
});
