import * as fs from 'node:fs';
import { Client } from 'pg';
import { checkoutCompleted, invoice, PaymentEventFixture } from '../factories/payment-events';
import { ServiceProcess, startService } from '../setup/service-process';
import { createUser, deliver, pool, PrivatePostgres, serviceEnv, sleep, stopService, tempDir, Timed } from './support';

const TEAMS = 60;
/** Teams whose row the test keeps locked, so their events are provably mid-transaction when the process dies. */
const BLOCKED = 3;

interface TeamRow {
  id: number;
  payment_customer_id: string | null;
  current_period_end: Date | null;
}

/**
 * SIGKILL while payment events are being processed, then the provider
 * redelivers every event: each one's effect is applied exactly once.
 *
 * Each team gets two events with independent effects: checkout.session.completed
 * (sets payment_customer_id = cus_<n>) and invoice.paid (sets
 * current_period_end to a value of that team's own). So "event recorded as
 * processed" and "its effect present" can be compared one by one.
 */
describe('SIGKILL in the middle of webhook processing, then redelivery', () => {
  let pg: PrivatePostgres;
  let dataDir: string;
  let env: Record<string, string>;
  const services: ServiceProcess[] = [];
  let locker: Client | undefined;

  beforeAll(async () => {
    pg = await PrivatePostgres.start();
    dataDir = tempDir('apt-res-webhooks-');
    env = serviceEnv(await pg.createDatabase('apt'), dataDir, { DATABASE_POOL_SIZE: '20' });
  }, 60_000);

  afterAll(async () => {
    await locker?.end().catch(() => undefined);
    for (const svc of services) await stopService(svc);
    if (pg) await pg.destroy();
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  }, 60_000);

  it('keeps "recorded as processed" and "effect applied" together through the crash, and applies every event once after redelivery', async () => {
    const first = await startService(env, 40_000);
    services.push(first);
    const users = await pool(
      Array.from({ length: TEAMS }, (_, i) => i),
      8,
      (i) => createUser(first.url, `crash-${i}@example.com`),
    );
    const teamIds = users.map((u) => u.team_id);
    const periodEnd = (n: number) => 1_800_000_000 + n * 86_400;
    const events: { event: PaymentEventFixture; team: number; kind: 'checkout' | 'invoice' }[] = [];
    users.forEach((u, n) => {
      events.push({ event: checkoutCompleted(u.team_id, `sub_crash_${n}`, `cus_crash_${n}`), team: u.team_id, kind: 'checkout' });
      const paid = invoice('invoice.paid', { subscription: `sub_crash_${n}`, customer: `cus_crash_${n}`, start: periodEnd(n) - 30 * 86_400, end: periodEnd(n), metadata: { team_id: String(u.team_id) } });
      events.push({ event: paid, team: u.team_id, kind: 'invoice' });
    });
    const blockedTeams = teamIds.slice(0, BLOCKED);

    locker = new Client({ connectionString: env.DATABASE_URL });
    await locker.connect();
    await locker.query('BEGIN');
    await locker.query('SELECT id FROM teams WHERE id = ANY($1) FOR UPDATE', [blockedTeams]);
    const lockerPid = (await locker.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0].pid;

    // The blocked teams' events go first; then the rest, 24 at a time.
    const answers = new Map<string, Timed>();
    const sending = pool(events, 24, async ({ event }) => {
      const res = await deliver(first.url, event);
      answers.set(event.id, res);
    });
    // Sessions of the service waiting on the test's locks: one per blocked team (its second event queues behind the first).
    const waiting = async () =>
      Number((await pg.query<{ n: string }>(`SELECT count(*) AS n FROM pg_stat_activity WHERE $1 = ANY(pg_blocking_pids(pid))`, [lockerPid]))[0].n);
    const deadline = Date.now() + 30_000;
    while (Date.now() < deadline && ((await waiting()) < BLOCKED || [...answers.values()].filter((a) => a.status === 200).length < 40)) await sleep(20);
    expect(await waiting()).toBeGreaterThanOrEqual(BLOCKED);
    const answeredBeforeKill = [...answers.values()].filter((a) => a.status === 200).length;
    first.child.kill('SIGKILL');
    expect((await first.exited).signal).toBe('SIGKILL');
    await sending;
    const lost = events.filter(({ event }) => answers.get(event.id)!.status !== 200).length;

    // Let the killed process's sessions end (the blocked ones first get their lock, then find the client gone).
    await locker.query('ROLLBACK');
    await locker.end();
    locker = undefined;
    for (let i = 0; i < 100; i++) {
      const left = await pg.query<{ n: string }>(`SELECT count(*) AS n FROM pg_stat_activity WHERE datname = 'apt' AND pid <> pg_backend_pid()`, [], 'apt');
      if (Number(left[0].n) === 0) break;
      await sleep(100);
    }

    const processed = new Set(
      (await pg.query<{ event_id: string }>('SELECT event_id FROM processed_events', [], 'apt')).map((r) => r.event_id),
    );
    const teams = new Map(
      (await pg.query<TeamRow>('SELECT id, payment_customer_id, current_period_end FROM teams WHERE id = ANY($1)', [teamIds], 'apt')).map((t) => [t.id, t]),
    );
    const applied = (e: (typeof events)[number]) => {
      const n = teamIds.indexOf(e.team);
      const team = teams.get(e.team)!;
      return e.kind === 'checkout' ? team.payment_customer_id === `cus_crash_${n}` : team.current_period_end?.getTime() === periodEnd(n) * 1000;
    };
    process.stdout.write(
      `webhook crash: ${JSON.stringify({ events: events.length, answeredBeforeKill, unansweredAtKill: lost, processedAtKill: processed.size })}\n`,
    );

    // Recorded as processed exactly when its effect is there: never one without the other.
    expect(events.filter((e) => processed.has(e.event.id) !== applied(e)).map((e) => e.event.id)).toEqual([]);
    // An "ok" the provider received means it was committed.
    expect(events.filter((e) => (answers.get(e.event.id)!.body as { status?: string })?.status === 'ok' && !processed.has(e.event.id))).toEqual([]);
    // The events caught mid-transaction (waiting on the locked rows) left nothing.
    const blocked = events.filter((e) => blockedTeams.includes(e.team));
    expect(blocked.filter((e) => processed.has(e.event.id) || applied(e))).toEqual([]);
    expect(processed.size).toBeGreaterThanOrEqual(40);
    expect(processed.size).toBeLessThan(events.length);

    // The provider redelivers everything (to the restarted service): each answer matches what was committed.
    const second = await startService(env, 40_000);
    services.push(second);
    const redelivered = await pool(events, 16, ({ event }) => deliver(second.url, event));
    expect(redelivered.map((r, i) => ({ id: events[i].event.id, status: r.status, body: r.body }))).toEqual(
      events.map(({ event }) => ({ id: event.id, status: 200, body: { status: processed.has(event.id) ? 'already_processed' : 'ok' } })),
    );

    const rows = await pg.query<{ event_id: string; outcome: string }>('SELECT event_id, outcome FROM processed_events', [], 'apt');
    expect(rows.map((r) => r.event_id).sort()).toEqual(events.map((e) => e.event.id).sort());
    expect(rows.every((r) => r.outcome === 'applied')).toBe(true);
    const final = await pg.query<TeamRow & { payment_subscription_id: string; subscription_status: string }>(
      'SELECT id, payment_customer_id, payment_subscription_id, subscription_status, current_period_end FROM teams WHERE id = ANY($1) ORDER BY id',
      [teamIds],
      'apt',
    );
    expect(final.map((t) => ({ ...t, current_period_end: t.current_period_end?.getTime() }))).toEqual(
      teamIds
        .map((id, n) => ({ id, payment_customer_id: `cus_crash_${n}`, payment_subscription_id: `sub_crash_${n}`, subscription_status: 'active', current_period_end: periodEnd(n) * 1000 }))
        .sort((a, b) => a.id - b.id),
    );
    expect(await pg.query('SELECT event_id FROM webhook_failures', [], 'apt')).toEqual([]);
  }, 60_000);
});
