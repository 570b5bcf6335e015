// Authenticated reads under load: GET /api/mcp/servers/{id} and
// GET /api/workforces/{id}/canvas through the built service, next to the bare
// server (bench/bare-server.mjs) doing the token hash, token lookup and row
// read with a `pg` pool of the same size, on the same database. Called by
// bench/run.mjs.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import autocannon from 'autocannon';
import { api, cpuSeconds, log, ROOT, spawnNode, spawnService, stop, waitReady, ADMIN_TOKEN } from './lib.mjs';

const POOL_SIZE = 10; // DATABASE_POOL_SIZE's default, for both

/** A small hand-drawn team: a coordinator and four agents. */
const CANVAS = {
  nodes: [
    { id: 'lead', type: 'coordinator', position: { x: 0, y: 0 }, data: { label: 'Lead' } },
    ...['research', 'write', 'review', 'publish'].map((id, i) => ({
      id,
      type: 'agent',
      agent_id: `00000000-0000-4000-8000-00000000000${i + 1}`,
      position: { x: 240, y: i * 120 },
      data: { label: id[0].toUpperCase() + id.slice(1) },
    })),
  ],
  edges: ['research', 'write', 'review', 'publish'].map((id) => ({ id: `lead-${id}`, source: 'lead', target: id })),
};

function cannon(opts) {
  return new Promise((resolve, reject) => {
    autocannon({ ...opts, timeout: 10 }, (err, result) => (err ? reject(err) : resolve(result)));
  });
}

/** One autocannon run; throughput counts 2xx answers only. */
async function measure(target, urlPath, auth, connections, seconds) {
  const cpuBefore = cpuSeconds(target.child.pid);
  const r = await cannon({ url: `${target.base}${urlPath}`, connections, duration: seconds, headers: { authorization: auth } });
  const cpu = cpuSeconds(target.child.pid) - cpuBefore;
  return {
    requests_per_second: Math.round(r['2xx'] / r.duration),
    p50_ms: r.latency.p50,
    p99_ms: r.latency.p99,
    non_2xx: r.non2xx,
    errors: r.errors,
    timeouts: r.timeouts,
    // CPU the server process spent per answer: far less sensitive than req/s to other load on the machine.
    cpu_ms_per_request: Number(((cpu * 1000) / Math.max(r.requests.total, 1)).toFixed(3)),
  };
}

/**
 * @param {{ databaseUrl: string, durationS: number, connections?: number[] }} options
 * @returns the rows of the reads table (one per endpoint and connection count)
 */
export async function runReads({ databaseUrl, durationS, connections = [16, 64] }) {
  // The service's local file storage lives under DATA_DIR even on PostgreSQL: a temporary one, removed after.
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'apt-bench-reads-'));
  const service = await spawnService({
    DATABASE_URL: databaseUrl,
    DATABASE_POOL_SIZE: String(POOL_SIZE),
    DATA_DIR: dataDir,
  });
  let bare;
  try {
    await waitReady(service);
    const admin = `Bearer ${ADMIN_TOKEN}`;
    const member = await api(service.base, 'POST', '/api/admin/users', {
      auth: admin,
      body: { email: `bench-reads-${Date.now()}@example.com` },
    });
    const auth = `Bearer ${member.token}`;
    const server = await api(service.base, 'POST', '/api/mcp/servers', {
      auth,
      body: {
        name: 'Bench notion',
        transport: 'streamable_http',
        description: 'Benchmark server',
        config: {
          url: 'https://mcp.example.com/mcp',
          headers: { Authorization: 'Bearer secret-value', 'X-Client': 'bench' },
          timeout_ms: 5000,
        },
      },
    });
    const workforce = await api(service.base, 'POST', '/api/workforces', { auth, body: { name: 'Bench team', canvas: CANVAS } });

    bare = await spawnNode(path.join(ROOT, 'bench', 'bare-server.mjs'), {
      DATABASE_URL: databaseUrl,
      DATABASE_POOL_SIZE: String(POOL_SIZE),
    });
    await waitReady(bare);

    const endpoints = [
      { name: 'GET /api/mcp/servers/{id}', path: `/api/mcp/servers/${server.id}` },
      { name: 'GET /api/workforces/{id}/canvas', path: `/api/workforces/${workforce.id}/canvas` },
    ];
    // Both answer 200 with the row before anything is timed.
    for (const e of endpoints) {
      for (const target of [service, bare]) {
        const body = await api(target.base, 'GET', e.path, { auth });
        if (!body || (body.id !== server.id && body.workforce_id !== workforce.id))
          throw new Error(`${target.base}${e.path}: unexpected ${JSON.stringify(body)}`);
      }
    }

    const warmupS = Math.min(3, Math.max(1, Math.round(durationS / 5)));
    const rows = [];
    let turn = 0;
    for (const e of endpoints) {
      for (const c of connections) {
        // Alternate who goes first, so a drift in the machine's load does not always favour one side.
        const order = turn++ % 2 === 0 ? ['service', 'bare'] : ['bare', 'service'];
        const figures = {};
        for (const who of order) {
          const target = who === 'service' ? service : bare;
          await measure(target, e.path, auth, c, warmupS);
          log(`reads: ${e.name} c=${c} ${who} (${durationS} s)`);
          figures[who] = await measure(target, e.path, auth, c, durationS);
        }
        const rpsRatio = figures.service.requests_per_second / figures.bare.requests_per_second;
        const p99Ratio = figures.service.p99_ms / Math.max(figures.bare.p99_ms, 1);
        rows.push({
          endpoint: e.name,
          connections: c,
          service: figures.service,
          baseline: figures.bare,
          throughput_ratio: Number(rpsRatio.toFixed(3)),
          p99_ratio: Number(p99Ratio.toFixed(3)),
          cpu_per_request_ratio: Number((figures.service.cpu_ms_per_request / figures.bare.cpu_ms_per_request).toFixed(2)),
          meets_target: rpsRatio >= 0.6 && p99Ratio <= 2 && figures.service.non_2xx === 0 && figures.service.errors === 0,
        });
      }
    }
    return rows;
  } finally {
    if (bare) await stop(bare);
    await stop(service);
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}
