// Webhook throughput: 2,000 distinct signed events at concurrency 16 against
// the built service (node dist/main.js) on a fresh PostgreSQL database, next
// to a bare `pg` script doing the same insert-plus-update transaction, on the
// same machine in the same run. Run with `npm run bench:webhooks`.
//
// BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/apt_billing_bench)
// names a database this script drops and recreates: it must contain "bench".
import { spawn } from 'node:child_process';
import http from 'node:http';
import { createServer } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import Stripe from 'stripe';

const EVENTS = 2000;
const WARMUP = 200;
const CONCURRENCY = 16;
const TEAMS = 100;
const SECRET = 'whsec_bench_0123456789abcdefghijklmnop';
const url = new URL(process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/apt_billing_bench');
const dbName = url.pathname.slice(1);
if (!/bench/.test(dbName)) throw new Error(`BENCH_DATABASE_URL must name a database containing "bench" (got "${dbName}")`);

async function admin(sql) {
  const adminUrl = new URL(url);
  adminUrl.pathname = '/postgres';
  const client = new pg.Client({ connectionString: adminUrl.toString() });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

function freePort() {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

/** Runs `task(i)` for i in [0, count) with at most `concurrency` in flight; returns elapsed seconds. */
async function pool(count, concurrency, task) {
  let next = 0;
  const started = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) await task(next++);
    }),
  );
  return Number(process.hrtime.bigint() - started) / 1e9;
}

const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });
function post(port, body, signature) {
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: '127.0.0.1', port, path: '/api/webhooks/payment', method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), 'payment-signature': signature } },
      (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode, body: Buffer.concat(chunks).toString() }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** A signed invoice.paid for team i: the handler claims the event id and updates the team's period. */
function signedEvent(prefix, i) {
  const team = (i % TEAMS) + 1;
  const body = JSON.stringify({
    id: `evt_${prefix}_${i}`,
    object: 'event',
    type: 'invoice.paid',
    created: 1763800000 + i,
    data: { object: { id: `in_${prefix}_${i}`, object: 'invoice', subscription: `sub_bench_${team}`, customer: `cus_bench_${team}`, lines: { data: [{ period: { start: 1763800000 + i, end: 1766400000 + i } }] } } },
  });
  return { body, signature: Stripe.webhooks.generateTestHeaderString({ payload: body, secret: SECRET }) };
}

async function main() {
  await admin(`DROP DATABASE IF EXISTS "${dbName}" WITH (FORCE)`);
  await admin(`CREATE DATABASE "${dbName}"`);
  const port = await freePort();
  const service = spawn(process.execPath, ['dist/main.js'], {
    env: {
      PATH: process.env.PATH,
      DATABASE_URL: url.toString(),
      DATABASE_POOL_SIZE: String(CONCURRENCY),
      PORT: String(port),
      HOST: '127.0.0.1',
      PAYMENT_WEBHOOK_SECRET: SECRET,
      RATE_LIMIT_PER_MINUTE: '0',
      LOG_LEVEL: 'warn',
      BOOTSTRAP_ADMIN_TOKEN: 'apt_bench-admin-token-0123456789abcdefghijkl',
      DATA_DIR: `/tmp/apt-bench-${process.pid}`,
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const db = new pg.Pool({ connectionString: url.toString(), max: CONCURRENCY });
  try {
    for (let i = 0; ; i++) {
      if (service.exitCode !== null) throw new Error(`The service exited (${service.exitCode})`);
      const ready = await new Promise((resolve) => {
        http.get({ host: '127.0.0.1', port, path: '/api/health/ready' }, (res) => resolve(res.statusCode === 200)).on('error', () => resolve(false));
      });
      if (ready) break;
      if (i > 300) throw new Error('The service did not become ready');
      await sleep(100);
    }
    await db.query(
      `INSERT INTO teams (name, payment_subscription_id, payment_customer_id)
       SELECT 'bench ' || i, 'sub_bench_' || i, 'cus_bench_' || i FROM generate_series(1, ${TEAMS}) i`,
    );
    const [{ first }] = (await db.query(`SELECT min(id) AS first FROM teams WHERE name LIKE 'bench %'`)).rows;
    const teamOffset = Number(first) - 1;

    // The service, over HTTP.
    const warm = Array.from({ length: WARMUP }, (_, i) => signedEvent('warm', i));
    await pool(WARMUP, CONCURRENCY, (i) => post(port, warm[i].body, warm[i].signature));
    const events = Array.from({ length: EVENTS }, (_, i) => signedEvent('run', i));
    const answers = new Array(EVENTS);
    const serviceSeconds = await pool(EVENTS, CONCURRENCY, async (i) => {
      answers[i] = await post(port, events[i].body, events[i].signature);
    });
    const bad = answers.filter((a) => a.status !== 200 || a.body !== '{"status":"ok"}');
    if (bad.length > 0) throw new Error(`${bad.length} deliveries did not answer ok, e.g. ${JSON.stringify(bad[0])}`);
    const [{ count }] = (await db.query(`SELECT count(*)::int AS count FROM processed_events WHERE event_id LIKE 'evt_run_%'`)).rows;
    if (count !== EVENTS) throw new Error(`${count} events recorded, expected ${EVENTS}`);

    // The bare transaction: claim the event id, update the team, commit.
    const bare = async (prefix, i) => {
      const client = await db.connect();
      try {
        await client.query('BEGIN');
        const claimed = await client.query(`INSERT INTO processed_events (event_id, event_type, outcome) VALUES ($1, 'invoice.paid', 'applied') ON CONFLICT (event_id) DO NOTHING RETURNING event_id`, [`evt_${prefix}_${i}`]);
        if (claimed.rowCount === 1) {
          await client.query(`UPDATE teams SET current_period_start = to_timestamp($2), current_period_end = to_timestamp($3) WHERE id = $1`, [
            teamOffset + (i % TEAMS) + 1,
            1763800000 + i,
            1766400000 + i,
          ]);
        }
        await client.query('COMMIT');
      } catch (err) {
        await client.query('ROLLBACK');
        throw err;
      } finally {
        client.release();
      }
    };
    await pool(WARMUP, CONCURRENCY, (i) => bare('barewarm', i));
    const bareSeconds = await pool(EVENTS, CONCURRENCY, (i) => bare('bare', i));

    const serviceRate = EVENTS / serviceSeconds;
    const bareRate = EVENTS / bareSeconds;
    const result = {
      events: EVENTS,
      concurrency: CONCURRENCY,
      service_events_per_second: Math.round(serviceRate),
      bare_pg_transactions_per_second: Math.round(bareRate),
      ratio_service_to_bare: Number((serviceRate / bareRate).toFixed(3)),
    };
    process.stdout.write(`Service over HTTP: ${result.service_events_per_second} events/s (${serviceSeconds.toFixed(2)} s for ${EVENTS})\n`);
    process.stdout.write(`Bare pg transaction: ${result.bare_pg_transactions_per_second} transactions/s (${bareSeconds.toFixed(2)} s for ${EVENTS})\n`);
    process.stdout.write(`Ratio service / bare: ${result.ratio_service_to_bare}\n${JSON.stringify(result)}\n`);
  } finally {
    agent.destroy();
    await db.end();
    service.kill('SIGTERM');
    await new Promise((resolve) => (service.exitCode !== null ? resolve() : service.once('exit', resolve)));
    await admin(`DROP DATABASE IF EXISTS "${dbName}" WITH (FORCE)`);
  }
}

main().catch((err) => {
  process.stderr.write(`${err.stack ?? err}\n`);
  process.exitCode = 1;
});
