// `npm run bench`: every benchmark next to its baseline, measured in the same
// run on the same machine; prints Markdown tables and writes bench/results.json.
//
//   BENCH_DATABASE_URL  PostgreSQL server to use (default postgres://postgres@127.0.0.1:5432/postgres;
//                       its database part is ignored: the run creates apt_bench_<timestamp> (reads,
//                       webhooks), apt_bench_<timestamp>_upload and apt_bench_<timestamp>_startup and
//                       drops them at the end)
//   BENCH_DURATION_S    seconds per autocannon run (default 15)
//   BENCH_ONLY          comma list of reads,webhooks,upload,startup (default: all)
//
// The 1-minute load average is recorded at the start and end of each section:
// the figures mean little on a machine that something else keeps busy.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import pg from 'pg';
import { databaseUrl as urlOf, dropDatabase, freshDatabase, load1, log, ROOT, serverUrl, withTimeout } from './lib.mjs';
import { runReads } from './reads.mjs';
import { runStartup } from './startup.mjs';
import { runWebhooks } from './webhooks.mjs';

const SECTIONS = ['reads', 'webhooks', 'upload', 'startup'];
const durationS = Number(process.env.BENCH_DURATION_S ?? 15);
if (!Number.isFinite(durationS) || durationS < 1) throw new Error('BENCH_DURATION_S must be a number of seconds ≥ 1');
const only = (process.env.BENCH_ONLY ?? SECTIONS.join(','))
  .split(',')
  .map((s) => s.trim())
  .filter(Boolean);
const unknown = only.filter((s) => !SECTIONS.includes(s));
if (unknown.length > 0) throw new Error(`BENCH_ONLY: unknown section(s) ${unknown.join(', ')} (known: ${SECTIONS.join(', ')})`);

const stamp = new Date().toISOString().replace(/\D/g, '').slice(0, 14);
const dbName = `apt_bench_${stamp}`;
const uploadScript = path.join(ROOT, 'bench', 'upload.mjs');

/**
 * bench/upload.mjs (from the files module) runs as it is, in its own process
 * group on PostgreSQL, and its closing JSON line is kept: it uploads 1 GiB
 * (BENCH_BYTES) to its own bare streaming server and to the service, in turns
 * for BENCH_ROUNDS rounds (default 3).
 */
async function runUpload(budgetMs) {
  if (!fs.existsSync(uploadScript)) {
    return { skipped: 'bench/upload.mjs is not on this branch (the files module has not landed)' };
  }
  // Its own database: the script's admin token is the bootstrap one, made only on an empty database.
  const uploadDb = `${dbName}_upload`;
  try {
    return await uploadOn(await freshDatabase(uploadDb), budgetMs);
  } finally {
    await dropDatabase(uploadDb);
  }
}

async function uploadOn(databaseUrl, budgetMs) {
  const env = { PATH: process.env.PATH, HOME: process.env.HOME, DATABASE_URL: databaseUrl };
  for (const name of ['BENCH_BYTES', 'BENCH_ROUNDS']) if (process.env[name]) env[name] = process.env[name];
  const child = spawn(process.execPath, [uploadScript], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'inherit'], detached: true });
  let stdout = '';
  child.stdout.on('data', (d) => {
    stdout += d.toString();
    process.stderr.write(d.toString().replace(/^(?=.)/gm, '[upload] '));
  });
  // Its service and bare server are its children: on a timeout the whole group goes.
  const timer = setTimeout(() => process.kill(-child.pid, 'SIGKILL'), budgetMs - 5000);
  const [code] = await once(child, 'exit');
  clearTimeout(timer);
  const line = stdout
    .trim()
    .split('\n')
    .reverse()
    .find((l) => l.startsWith('{'));
  if (code !== 0 || !line) throw new Error(`bench/upload.mjs exited with ${code}`);
  const r = JSON.parse(line);
  const median = (values) => {
    const sorted = [...values].sort((a, b) => a - b);
    const mid = Math.floor(sorted.length / 2);
    return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
  };
  const rssGrowth = Math.max(...r.service_rss_growth_mib);
  return {
    ...r,
    service_median_mib_per_s: median(r.service_mib_per_s),
    bare_median_mib_per_s: median(r.bare_mib_per_s),
    service_peak_rss_growth_mib: rssGrowth,
    meets_target: r.ratio >= 0.7 && rssGrowth < 64,
  };
}

async function serverVersion() {
  const client = new pg.Client({ connectionString: urlOf('postgres'), connectionTimeoutMillis: 5000 });
  await client.connect();
  try {
    return (await client.query('SHOW server_version')).rows[0].server_version;
  } finally {
    await client.end();
  }
}

const fmt = (n, digits = 0) => (n === undefined || n === null || Number.isNaN(n) ? '–' : Number(n).toFixed(digits));
const mark = (ok) => (ok ? 'yes' : '**no**');

function table(header, rows) {
  return [`| ${header.join(' | ')} |`, `|${header.map(() => '---').join('|')}|`, ...rows.map((r) => `| ${r.join(' | ')} |`)].join('\n');
}

function render(results) {
  const out = [];
  const h = results.host;
  out.push(
    `Machine: ${h.cpus} × ${h.cpu_model}, ${h.memory_gib} GiB, Node ${h.node}, PostgreSQL ${h.postgres} on ${h.database_host}; ` +
      `${results.duration_s} s per autocannon run; ${results.started_at}`,
  );
  const loadLine = (s) =>
    `1-minute load average: ${fmt(s.load_1m_start, 2)} at start, ${fmt(s.load_1m_end, 2)} at end (${h.cpus} cores); ${fmt(s.seconds)} s`;
  for (const [name, s] of Object.entries(results.sections)) {
    out.push('', `### ${name}`, '');
    if (s.error) {
      out.push(`FAILED: ${s.error}`, '', loadLine(s));
      continue;
    }
    if (name === 'reads') {
      out.push(
        table(
          [
            'Endpoint',
            'Conns',
            'Service req/s',
            'Bare req/s',
            'Ratio (≥ 0.60)',
            'Service p50 / p99 ms',
            'Bare p50 / p99 ms',
            'p99 ratio (≤ 2)',
            'CPU ms/req service / bare',
            'Target met',
          ],
          s.result.map((r) => [
            `\`${r.endpoint}\``,
            r.connections,
            fmt(r.service.requests_per_second),
            fmt(r.baseline.requests_per_second),
            fmt(r.throughput_ratio, 2),
            `${fmt(r.service.p50_ms)} / ${fmt(r.service.p99_ms)}`,
            `${fmt(r.baseline.p50_ms)} / ${fmt(r.baseline.p99_ms)}`,
            fmt(r.p99_ratio, 2),
            `${fmt(r.service.cpu_ms_per_request, 3)} / ${fmt(r.baseline.cpu_ms_per_request, 3)}`,
            mark(r.meets_target) +
              (r.service.non_2xx + r.service.errors > 0 ? ` (${r.service.non_2xx} non-2xx, ${r.service.errors} errors)` : ''),
          ]),
        ),
      );
    } else if (name === 'webhooks') {
      const r = s.result;
      out.push(
        table(
          [
            'Events',
            'Concurrency',
            'Service events/s',
            'Bare pg transactions/s',
            'Ratio (≥ 0.50)',
            'CPU ms/event service / bare',
            'Target met',
          ],
          [
            [
              r.events,
              r.concurrency,
              fmt(r.service_events_per_second),
              fmt(r.bare_pg_transactions_per_second),
              fmt(r.ratio_service_to_bare, 2),
              `${fmt(r.service_cpu_ms_per_event, 3)} / ${fmt(r.bare_cpu_ms_per_transaction, 3)}`,
              mark(r.meets_target),
            ],
          ],
        ),
      );
    } else if (name === 'startup') {
      out.push(
        table(
          ['Case', 'Service ready ms', 'Bare ready ms', 'Ratio', 'Service idle RSS MiB', 'Bare idle RSS MiB'],
          s.result.map((r) => [
            r.case,
            fmt(r.service.ready_ms),
            fmt(r.baseline.ready_ms),
            fmt(r.ready_ratio, 2),
            fmt(r.service.idle_rss_mib, 1),
            fmt(r.baseline.idle_rss_mib, 1),
          ]),
        ),
      );
    } else if (name === 'upload' && !s.result?.skipped) {
      const r = s.result;
      out.push(
        table(
          [
            'Upload',
            'Rounds',
            'Service MiB/s (median)',
            'Bare MiB/s (median)',
            'Ratio (≥ 0.70)',
            'Service peak RSS growth MiB (< 64)',
            'CPU s service / bare',
            'Target met',
          ],
          [
            [
              `${fmt(r.bytes / 2 ** 20)} MiB multipart`,
              r.rounds,
              fmt(r.service_median_mib_per_s, 1),
              fmt(r.bare_median_mib_per_s, 1),
              fmt(r.ratio, 2),
              fmt(r.service_peak_rss_growth_mib, 1),
              `${r.service_cpu_s.join(', ')} / ${r.bare_cpu_s.join(', ')}`,
              mark(r.meets_target),
            ],
          ],
        ),
      );
    } else if (s.result?.skipped) {
      out.push(`Not measured: ${s.result.skipped}`);
    }
    out.push('', loadLine(s));
  }
  return out.join('\n');
}

async function main() {
  const base = serverUrl();
  const results = {
    started_at: new Date().toISOString(),
    host: {
      cpus: os.cpus().length,
      cpu_model: os.cpus()[0]?.model?.trim() ?? 'unknown',
      memory_gib: Number((os.totalmem() / 2 ** 30).toFixed(1)),
      node: process.version,
      postgres: await serverVersion(),
      database_host: `${base.hostname}:${base.port || 5432}`,
    },
    duration_s: durationS,
    sections: {},
  };
  let failed = false;
  const databaseUrl = only.some((s) => s === 'reads' || s === 'webhooks') ? await freshDatabase(dbName) : undefined;
  log(`run ${stamp}: ${only.join(', ')}; ${durationS} s per autocannon run; load ${load1()}`);
  const work = {
    reads: { budgetMs: 8 * (durationS + 3) * 1000 + 120_000, run: () => runReads({ databaseUrl, durationS }) },
    webhooks: { budgetMs: 300_000, run: () => runWebhooks({ databaseUrl }) },
    upload: { budgetMs: 900_000, run: () => runUpload(900_000) },
    startup: { budgetMs: 300_000, run: () => runStartup({ stamp }) },
  };
  try {
    for (const name of SECTIONS.filter((s) => only.includes(s))) {
      const section = { load_1m_start: load1() };
      const started = performance.now();
      try {
        section.result = await withTimeout(work[name].run(), work[name].budgetMs, name);
      } catch (err) {
        failed = true;
        section.error = err instanceof Error ? err.message : String(err);
        log(`${name} failed: ${err?.stack ?? err}`);
      }
      section.load_1m_end = load1();
      section.seconds = Math.round((performance.now() - started) / 1000);
      results.sections[name] = section;
    }
  } finally {
    if (databaseUrl) await dropDatabase(dbName);
  }
  results.finished_at = new Date().toISOString();
  fs.writeFileSync(path.join(ROOT, 'bench', 'results.json'), `${JSON.stringify(results, null, 2)}\n`);
  process.stdout.write(`${render(results)}\n\nWritten to bench/results.json\n`);
  // Exit now: a section that timed out may still hold timers or sockets (its children are killed on exit).
  process.exit(failed ? 1 : 0);
}

main().catch((err) => {
  process.stderr.write(`${err.stack ?? err}\n`);
  process.exitCode = 1;
});
