// Start-up to ready: from spawn to the first 200 of /api/health/ready (polled
// every 20 ms), on the embedded database (a fresh DATA_DIR, then a second start
// on the same one) and on a fresh PostgreSQL database; then the idle RSS 2 s
// after ready. Baseline: bench/bare-server.mjs on the same database (Node,
// the driver or PGlite opened in a fresh folder, `SELECT 1`, listening) — the
// floor under which no service on that database starts. Called by bench/run.mjs.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { dropDatabase, freshDatabase, log, ROOT, rssBytes, spawnNode, spawnService, stop, waitReady } from './lib.mjs';

const IDLE_MS = 2000;
const BARE = path.join(ROOT, 'bench', 'bare-server.mjs');

async function startOnce(spawnIt) {
  const proc = await spawnIt();
  try {
    const readyMs = await waitReady(proc, { intervalMs: 20 });
    await sleep(IDLE_MS);
    const rss = rssBytes(proc.child.pid);
    const exit = await stop(proc);
    return { ready_ms: Math.round(readyMs), idle_rss_mib: Number((rss / 2 ** 20).toFixed(1)), exit_code: exit.code };
  } finally {
    await stop(proc);
  }
}

/** @param {{ stamp: string }} options (names the fresh PostgreSQL database apt_bench_<stamp>_startup) */
export async function runStartup({ stamp }) {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'apt-bench-startup-'));
  const dbName = `apt_bench_${stamp}_startup`;
  const rows = [];
  try {
    const serviceDir = path.join(tmp, 'service');
    const bareDir = path.join(tmp, 'bare');
    log('startup: PGlite, fresh DATA_DIR');
    const pgliteFresh = await startOnce(() => spawnService({ DATA_DIR: serviceDir }));
    const bareFresh = await startOnce(() => spawnNode(BARE, { PGLITE_DIR: bareDir }));
    rows.push({ case: 'PGlite, fresh DATA_DIR (migrations run)', service: pgliteFresh, baseline: bareFresh });

    log('startup: PGlite, second start on the same DATA_DIR');
    const pgliteAgain = await startOnce(() => spawnService({ DATA_DIR: serviceDir }));
    const bareAgain = await startOnce(() => spawnNode(BARE, { PGLITE_DIR: bareDir }));
    rows.push({ case: 'PGlite, existing DATA_DIR', service: pgliteAgain, baseline: bareAgain });

    log('startup: PostgreSQL, fresh database');
    const databaseUrl = await freshDatabase(dbName);
    const pgFresh = await startOnce(() => spawnService({ DATABASE_URL: databaseUrl, DATA_DIR: path.join(tmp, 'pg') }));
    const barePg = await startOnce(() => spawnNode(BARE, { DATABASE_URL: databaseUrl }));
    rows.push({ case: 'PostgreSQL, fresh database (migrations run)', service: pgFresh, baseline: barePg });
    for (const row of rows) {
      row.ready_ratio = Number((row.service.ready_ms / row.baseline.ready_ms).toFixed(2));
      row.idle_rss_ratio = Number((row.service.idle_rss_mib / row.baseline.idle_rss_mib).toFixed(2));
    }
    return rows;
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
    await dropDatabase(dbName).catch(() => {});
  }
}
