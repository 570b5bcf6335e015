// Memory search benchmark: 100,000 entries on PostgreSQL, 200 searches through the HTTP API.
//
//   npm run build && npm run bench:memory
//
// Creates a fresh database (BENCH_DATABASE_URL, default
// postgres://postgres@127.0.0.1:5432/apt_memory_bench: it is DROPPED first),
// starts the built service (dist/main.js) on it, which runs the migrations,
// makes a user through the admin API, inserts the entries with SQL in batches
// (the inserts are not what is measured), runs ANALYZE, then times 200 searches
// (`GET /api/memory?q=...`, one at a time, after 20 warm-up searches) and
// prints p50/p95/p99, and EXPLAIN ANALYZE of the service's search query.
// Options: BENCH_ENTRIES (100000), BENCH_QUERIES (200), BENCH_KEEP_DB=1.
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import * as net from 'node:net';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dbUrl = new URL(process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/apt_memory_bench');
const ENTRIES = Number(process.env.BENCH_ENTRIES ?? 100_000);
const QUERIES = Number(process.env.BENCH_QUERIES ?? 200);
const WARMUP = 20;
const ADMIN_TOKEN = `apt_bench-${randomUUID()}`;
const log = (...args) => console.error('[bench]', ...args);

// Deterministic pseudo-random numbers, so every run searches the same data.
let seed = 42;
const random = () => ((seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648) / 2_147_483_648);
const pick = (list) => list[Math.floor(random() * list.length)];
/** Zipf-like: early words of a list far more often than late ones, as in real text. */
const zipf = (list) => list[Math.min(list.length - 1, Math.floor(list.length * random() ** 3))];

const people = ['Ada', 'Grace', 'Linus', 'Margaret', 'Alan', 'Barbara', 'Dennis', 'Ken', 'Frances', 'Edsger', 'Donald', 'Radia', 'Tim', 'Vint', 'Katherine', 'Hedy', 'John', 'Sophie', 'Yuki', 'Priya', 'Omar', 'Lena', 'Mateo', 'Chen'];
const companies = ['Acme', 'Globex', 'Initech', 'Umbrella', 'Hooli', 'Stark', 'Wayne', 'Wonka', 'Tyrell', 'Cyberdyne', 'Soylent', 'Aperture', 'Vandelay', 'Massive Dynamic', 'Pied Piper'];
const subjects = ['customer', 'user', 'team', 'manager', 'client', 'developer', 'designer', 'vendor', 'partner', 'analyst', 'support agent', 'founder', 'investor', 'recruiter', 'auditor'];
const verbs = ['prefers', 'asked about', 'complained about', 'approved', 'rejected', 'requested', 'mentioned', 'scheduled', 'cancelled', 'postponed', 'reviewed', 'shared', 'forgot', 'renewed', 'escalated', 'signed', 'updated', 'questioned', 'praised', 'benchmarked'];
const objects = ['the quarterly report', 'a refund', 'the weekly summary', 'the invoice', 'the contract renewal', 'a product demo', 'the onboarding checklist', 'the security review', 'the API migration', 'the pricing page', 'a discount', 'the roadmap', 'the incident postmortem', 'the data export', 'a custom integration', 'the SSO setup', 'the mobile app', 'the billing address', 'the support ticket', 'the launch plan', 'the hiring plan', 'the budget', 'the sales forecast', 'the privacy policy', 'the dashboard', 'the webhook retries', 'the search latency', 'the backup schedule', 'the translation files', 'the accessibility audit'];
const when = ['on Monday', 'on Tuesday', 'on Wednesday', 'on Thursday', 'on Friday', 'last week', 'next month', 'in March', 'in the morning', 'after lunch', 'before the deadline', 'during the call', 'yesterday', 'today', 'at the offsite'];
const extras = ['by email', 'over the phone', 'in Slack', 'with a short note', 'very politely', 'rather urgently', 'for the second time', 'without details', 'with screenshots', 'in the meeting notes', 'through the portal', 'in a voice message'];
const topics = ['kubernetes', 'postgres', 'terraform', 'latency', 'throughput', 'encryption', 'compliance', 'gdpr', 'soc2', 'pagination', 'caching', 'observability', 'tracing', 'graphql', 'websocket', 'oauth', 'retries', 'idempotency', 'sharding', 'replication', 'vacuum', 'indexing', 'tokenizer', 'embedding', 'prompt', 'agent', 'workflow', 'scheduler', 'queue', 'webhook'];
const adjectives = ['urgent', 'minor', 'critical', 'recurring', 'unexpected', 'expensive', 'cheap', 'slow', 'fast', 'confusing', 'helpful', 'broken', 'stable', 'experimental', 'legacy'];
const tagPool = ['preferences', 'billing', 'support', 'sales', 'engineering', 'legal', 'hr', 'ops', 'product', 'security', 'personal', 'follow-up'];

function sentence() {
  switch (Math.floor(random() * 4)) {
    case 0:
      return `The ${zipf(subjects)} at ${zipf(companies)} ${zipf(verbs)} ${zipf(objects)} ${pick(when)}.`;
    case 1:
      return `${zipf(people)} ${zipf(verbs)} ${zipf(objects)} ${pick(extras)}, mostly about ${zipf(topics)}.`;
    case 2:
      return `Note: ${zipf(adjectives)} issue with ${zipf(topics)} and ${zipf(topics)} reported by ${zipf(people)} from ${zipf(companies)}.`;
    default:
      return `Remember that ${zipf(people)} ${zipf(verbs)} ${zipf(objects)}; ticket #${Math.floor(random() * 90_000) + 10_000} is still open.`;
  }
}

function entryText() {
  const n = 1 + Math.floor(random() * 4);
  return Array.from({ length: n }, sentence).join(' ');
}

function searchQuery() {
  switch (Math.floor(random() * 6)) {
    case 0:
      return zipf(topics);
    case 1:
      return `${pick(people)} ${pick(topics)}`;
    case 2:
      return `"${pick(objects).replace(/^the |^a /, '')}"`;
    case 3:
      return `${pick(topics)} or ${pick(topics)}`;
    case 4:
      return `${pick(companies).split(' ')[0]} ${pick(['refund', 'invoice', 'contract', 'roadmap', 'budget'])} -${pick(['monday', 'friday', 'email'])}`;
    default:
      return `${pick(adjectives)} ${pick(topics)} ${pick(people)}`;
  }
}

async function adminClient(database) {
  const url = new URL(dbUrl);
  url.pathname = `/${database}`;
  const client = new pg.Client({ connectionString: url.toString() });
  await client.connect();
  return client;
}

async function freePort() {
  const server = net.createServer();
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address();
  await new Promise((r) => server.close(r));
  return port;
}

function percentile(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

async function main() {
  const name = dbUrl.pathname.slice(1);
  log(`fresh database ${name}`);
  const admin = await adminClient('postgres');
  await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  await admin.query(`CREATE DATABASE "${name}"`);
  await admin.end();

  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const service = spawn(process.execPath, [path.join(root, 'dist', 'main.js')], {
    cwd: root,
    env: {
      PATH: process.env.PATH,
      DATABASE_URL: dbUrl.toString(),
      PORT: String(port),
      HOST: '127.0.0.1',
      BOOTSTRAP_ADMIN_TOKEN: ADMIN_TOKEN,
      RATE_LIMIT_PER_MINUTE: '0',
      LOG_LEVEL: 'warn',
      DATA_DIR: path.join(root, 'data', 'bench'),
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const exited = once(service, 'exit');
  try {
    for (let i = 0; ; i++) {
      if (service.exitCode !== null) throw new Error(`the service exited with ${service.exitCode}`);
      const ok = await fetch(`${base}/api/health/ready`).then((r) => r.ok, () => false);
      if (ok) break;
      if (i > 600) throw new Error('the service did not become ready in 60 s');
      await new Promise((r) => setTimeout(r, 100));
    }
    log(`service ready on ${base} (migrations applied)`);

    const created = await fetch(`${base}/api/admin/users`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ email: `bench-${Date.now()}@example.com` }),
    }).then((r) => r.json());
    const auth = `Bearer ${created.token}`;

    const db = await adminClient(name);
    const started = Date.now();
    const BATCH = 1000;
    for (let done = 0; done < ENTRIES; done += BATCH) {
      const rows = Math.min(BATCH, ENTRIES - done);
      const values = [];
      const params = [];
      for (let i = 0; i < rows; i++) {
        const tags = tagPool.filter(() => random() < 0.15);
        // Spread over the last 90 days, so created_at ties are rare as in real use.
        const createdAt = new Date(Date.now() - Math.floor(random() * 90 * 86_400_000));
        params.push(randomUUID(), created.user_id, entryText(), tags, createdAt);
        const o = i * 5;
        values.push(`($${o + 1}, $${o + 2}, $${o + 3}, $${o + 4}, $${o + 5})`);
      }
      await db.query(`INSERT INTO memory_entries (id, user_id, content, tags, created_at) VALUES ${values.join(', ')}`, params);
    }
    await db.query('ANALYZE memory_entries');
    const size = await db.query(`SELECT pg_size_pretty(pg_total_relation_size('memory_entries')) AS total, pg_size_pretty(pg_relation_size('memory_entries_search_idx')) AS gin`);
    log(`inserted ${ENTRIES} entries in ${((Date.now() - started) / 1000).toFixed(1)} s (table ${size.rows[0].total}, GIN index ${size.rows[0].gin})`);

    const queries = Array.from({ length: WARMUP + QUERIES }, searchQuery);
    const timings = [];
    let matched = 0;
    for (const [i, q] of queries.entries()) {
      const t0 = performance.now();
      const res = await fetch(`${base}/api/memory?q=${encodeURIComponent(q)}&limit=20`, { headers: { authorization: auth } });
      const body = await res.json();
      const ms = performance.now() - t0;
      if (res.status !== 200) throw new Error(`search ${q}: ${res.status} ${JSON.stringify(body)}`);
      if (i >= WARMUP) {
        timings.push(ms);
        matched += Number(res.headers.get('x-total-count'));
      }
    }
    timings.sort((a, b) => a - b);
    const mean = timings.reduce((a, b) => a + b, 0) / timings.length;
    const figures = {
      entries: ENTRIES,
      queries: QUERIES,
      p50_ms: +percentile(timings, 50).toFixed(1),
      p95_ms: +percentile(timings, 95).toFixed(1),
      p99_ms: +percentile(timings, 99).toFixed(1),
      max_ms: +timings[timings.length - 1].toFixed(1),
      mean_ms: +mean.toFixed(1),
      mean_matches: Math.round(matched / QUERIES),
    };

    // The service's search query (memory.service.ts), for one selective and one common query.
    const plans = {};
    for (const q of ['"security review" escalated', 'postgres']) {
      const plan = await db.query(
        `EXPLAIN (ANALYZE, BUFFERS)
         SELECT m.id, m.content, m.tags, m.agent_id, m.metadata, m.created_at
           FROM memory_entries m
          WHERE m.user_id = $1 AND m.search @@ websearch_to_tsquery('simple', $2)
          ORDER BY ts_rank(m.search, websearch_to_tsquery('simple', $2)) DESC, m.created_at DESC, m.id
          LIMIT 20 OFFSET 0`,
        [created.user_id, q],
      );
      plans[q] = plan.rows.map((r) => r['QUERY PLAN']).join('\n');
    }
    await db.end();

    console.log(JSON.stringify(figures));
    for (const [q, plan] of Object.entries(plans)) console.error(`\nEXPLAIN ANALYZE for q=${q}\n${plan}`);
  } finally {
    service.kill('SIGTERM');
    await exited;
    if (!process.env.BENCH_KEEP_DB) {
      const cleanup = await adminClient('postgres');
      await cleanup.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await cleanup.end();
    }
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
