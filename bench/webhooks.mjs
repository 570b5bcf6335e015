// Webhook throughput: 2,000 distinct signed events at concurrency 16 against
// the built service (node dist/main.js) on PostgreSQL, next to a bare `pg`
// loop doing the same insert-plus-update transaction, on the same machine in
// the same run.
//
// `runWebhooks()` is what bench/run.mjs calls (on its own fresh database).
// Run alone with `npm run bench:webhooks`: BENCH_DATABASE_URL (default
// postgres://postgres@127.0.0.1:5432/apt_billing_bench) names a database this
// script drops and recreates, so it must contain "bench".
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import http from 'node:http';
import pg from 'pg';
import Stripe from 'stripe';
import { cpuSeconds, dropDatabase, freshDatabase, log, runPool, spawnService, stop, waitReady } from './lib.mjs';

const SECRET = 'whsec_bench_0123456789abcdefghijklmnop';
const TEAMS = 100;

function post(agent, port, body, signature) {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        path: '/api/webhooks/payment',
        method: 'POST',
        agent,
        timeout: 30_000,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), 'payment-signature': signature },
      },
      (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode, body: Buffer.concat(chunks).toString() }));
      },
    );
    req.on('timeout', () => req.destroy(new Error('webhook delivery timed out')));
    req.on('error', reject);
    req.end(body);
  });
}

/** A signed invoice.paid for team i: the handler claims the event id and updates the team's period. */
function signedEvent(tag, prefix, i) {
  const team = (i % TEAMS) + 1;
  const body = JSON.stringify({
    id: `evt_${tag}_${prefix}_${i}`,
    object: 'event',
    type: 'invoice.paid',
    created: 1763800000 + i,
    data: {
      object: {
        id: `in_${tag}_${prefix}_${i}`,
        object: 'invoice',
        subscription: `sub_bench_${tag}_${team}`,
        customer: `cus_bench_${tag}_${team}`,
        lines: { data: [{ period: { start: 1763800000 + i, end: 1766400000 + i } }] },
      },
    },
  });
  return { body, signature: Stripe.webhooks.generateTestHeaderString({ payload: body, secret: SECRET }) };
}

/**
 * Delivers `events` signed events to the service at `concurrency`, then runs
 * the bare transaction `events` times at the same concurrency, both after a
 * warm-up, on the (already created) database at `databaseUrl`.
 */
export async function runWebhooks({ databaseUrl, events = 2000, concurrency = 16, warmup = 200 }) {
  // Distinct per run, so the figures never include already-processed events.
  const tag = Date.now().toString(36);
  // The service's local file storage lives under DATA_DIR even on PostgreSQL: a temporary one, removed after.
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'apt-bench-webhooks-'));
  const service = await spawnService({
    DATABASE_URL: databaseUrl,
    DATABASE_POOL_SIZE: String(concurrency),
    PAYMENT_WEBHOOK_SECRET: SECRET,
    DATA_DIR: dataDir,
  });
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  const db = new pg.Pool({ connectionString: databaseUrl, max: concurrency });
  try {
    await waitReady(service);
    const teams = await db.query(
      `INSERT INTO teams (name, payment_subscription_id, payment_customer_id)
       SELECT 'bench ' || $1 || ' ' || i, 'sub_bench_' || $1 || '_' || i, 'cus_bench_' || $1 || '_' || i FROM generate_series(1, ${TEAMS}) i
       RETURNING id`,
      [tag],
    );
    const teamIds = teams.rows.map((r) => r.id).sort((a, b) => a - b);

    // The service, over HTTP.
    const warm = Array.from({ length: warmup }, (_, i) => signedEvent(tag, 'warm', i));
    await runPool(warmup, concurrency, (i) => post(agent, service.port, warm[i].body, warm[i].signature));
    const batch = Array.from({ length: events }, (_, i) => signedEvent(tag, 'run', i));
    const answers = new Array(events);
    log(`webhooks: ${events} events at concurrency ${concurrency} through the service`);
    const serviceCpuBefore = cpuSeconds(service.child.pid);
    const serviceSeconds = await runPool(events, concurrency, async (i) => {
      answers[i] = await post(agent, service.port, batch[i].body, batch[i].signature);
    });
    const serviceCpu = cpuSeconds(service.child.pid) - serviceCpuBefore;
    const bad = answers.filter((a) => a.status !== 200 || a.body !== '{"status":"ok"}');
    if (bad.length > 0) throw new Error(`${bad.length} deliveries did not answer ok, e.g. ${JSON.stringify(bad[0])}`);
    const [{ count }] = (await db.query(`SELECT count(*)::int AS count FROM processed_events WHERE event_id LIKE $1`, [`evt_${tag}_run_%`]))
      .rows;
    if (count !== events) throw new Error(`${count} events recorded, expected ${events}`);

    // The bare transaction: claim the event id, update the team, commit.
    const bare = async (prefix, i) => {
      const client = await db.connect();
      try {
        await client.query('BEGIN');
        const claimed = await client.query(
          `INSERT INTO processed_events (event_id, event_type, outcome) VALUES ($1, 'invoice.paid', 'applied') ON CONFLICT (event_id) DO NOTHING RETURNING event_id`,
          [`evt_${tag}_${prefix}_${i}`],
        );
        if (claimed.rowCount === 1) {
          await client.query(
            `UPDATE teams SET current_period_start = to_timestamp($2), current_period_end = to_timestamp($3) WHERE id = $1`,
            [teamIds[i % TEAMS], 1763800000 + i, 1766400000 + i],
          );
        }
        await client.query('COMMIT');
      } catch (err) {
        await client.query('ROLLBACK');
        throw err;
      } finally {
        client.release();
      }
    };
    await runPool(warmup, concurrency, (i) => bare('barewarm', i));
    log(`webhooks: ${events} bare pg transactions at concurrency ${concurrency}`);
    const bareCpuBefore = process.cpuUsage();
    const bareSeconds = await runPool(events, concurrency, (i) => bare('bare', i));
    const bareCpuUsage = process.cpuUsage(bareCpuBefore);
    const bareCpu = (bareCpuUsage.user + bareCpuUsage.system) / 1e6;

    const serviceRate = events / serviceSeconds;
    const bareRate = events / bareSeconds;
    return {
      events,
      concurrency,
      service_events_per_second: Math.round(serviceRate),
      service_seconds: Number(serviceSeconds.toFixed(2)),
      bare_pg_transactions_per_second: Math.round(bareRate),
      bare_seconds: Number(bareSeconds.toFixed(2)),
      ratio_service_to_bare: Number((serviceRate / bareRate).toFixed(3)),
      // CPU per event of the service process, and of this process running the bare loop.
      service_cpu_ms_per_event: Number(((serviceCpu * 1000) / events).toFixed(3)),
      bare_cpu_ms_per_transaction: Number(((bareCpu * 1000) / events).toFixed(3)),
      meets_target: serviceRate / bareRate >= 0.5,
    };
  } finally {
    agent.destroy();
    await db.end();
    await stop(service);
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

async function main() {
  const url = new URL(process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/apt_billing_bench');
  const dbName = url.pathname.slice(1);
  const databaseUrl = await freshDatabase(dbName, url);
  try {
    const result = await runWebhooks({ databaseUrl });
    process.stdout.write(
      `Service over HTTP: ${result.service_events_per_second} events/s (${result.service_seconds} s for ${result.events})\n`,
    );
    process.stdout.write(
      `Bare pg transaction: ${result.bare_pg_transactions_per_second} transactions/s (${result.bare_seconds} s for ${result.events})\n`,
    );
    process.stdout.write(`Ratio service / bare: ${result.ratio_service_to_bare}\n${JSON.stringify(result)}\n`);
  } finally {
    await dropDatabase(dbName, url);
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((err) => {
    process.stderr.write(`${err.stack ?? err}\n`);
    process.exitCode = 1;
  });
}
