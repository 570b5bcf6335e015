// Helpers shared by the benchmark scripts: databases, child processes, ports,
// readiness, RSS and load. Loopback only; every wait is bounded.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import pg from 'pg';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const MAIN = path.join(ROOT, 'dist', 'main.js');
export const ADMIN_TOKEN = 'apt_bench-admin-token-0123456789abcdefghijkl';

/** The PostgreSQL server the benchmarks use (its path is ignored: they make their own databases). */
export function serverUrl() {
  return new URL(process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres');
}

/** The URL of database `name` on the benchmark server. */
export function databaseUrl(name, base = serverUrl()) {
  const url = new URL(base);
  url.pathname = `/${name}`;
  return url.toString();
}

/** Runs one statement on the server's `postgres` database (CREATE/DROP DATABASE). */
export async function adminQuery(sql, base = serverUrl()) {
  const client = new pg.Client({ connectionString: databaseUrl('postgres', base), connectionTimeoutMillis: 5000 });
  await client.connect();
  try {
    return await client.query(sql);
  } finally {
    await client.end();
  }
}

/** Drops (if present) and creates `name`; refuses names that are not benchmark databases. */
export async function freshDatabase(name, base = serverUrl()) {
  if (!/bench/.test(name)) throw new Error(`refusing to recreate "${name}": benchmark databases contain "bench"`);
  await adminQuery(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`, base);
  await adminQuery(`CREATE DATABASE "${name}"`, base);
  return databaseUrl(name, base);
}

export async function dropDatabase(name, base = serverUrl()) {
  if (!/bench/.test(name)) throw new Error(`refusing to drop "${name}"`);
  await adminQuery(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`, base);
}

export function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

/** Every child still running, so an interrupted run leaves no process behind. */
const children = new Set();
function killAll() {
  for (const child of children) child.kill('SIGKILL');
}
process.once('exit', killAll);
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, () => {
    killAll();
    process.exit(130);
  });
}

/**
 * Spawns `node <script>` on a free loopback port with only PATH/HOME and `env`;
 * keeps the last 4 KiB of its stderr for error messages.
 */
export async function spawnNode(script, env, { nodeArgs = [] } = {}) {
  const port = await freePort();
  const spawnedAt = performance.now();
  const child = spawn(process.execPath, [...nodeArgs, script], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, HOST: '127.0.0.1', PORT: String(port), ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  children.add(child);
  let stderr = '';
  child.stderr.on('data', (d) => {
    stderr = (stderr + d.toString()).slice(-4096);
  });
  const exited = once(child, 'exit').then(([code, signal]) => {
    children.delete(child);
    return { code, signal };
  });
  return { child, port, base: `http://127.0.0.1:${port}`, spawnedAt, exited, stderr: () => stderr };
}

/** Starts the built service (dist/main.js) with a quiet log and no rate limit. */
export function spawnService(env) {
  if (!fs.existsSync(MAIN)) throw new Error(`${MAIN} is missing: run npm run build first`);
  // BENCH_SERVICE_NODE_ARGS: extra node flags for the service, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof".
  const nodeArgs = (process.env.BENCH_SERVICE_NODE_ARGS ?? '').split(' ').filter(Boolean);
  return spawnNode(MAIN, { LOG_LEVEL: 'warn', RATE_LIMIT_PER_MINUTE: '0', BOOTSTRAP_ADMIN_TOKEN: ADMIN_TOKEN, ...env }, { nodeArgs });
}

/** Polls /api/health/ready every `intervalMs` until 200; returns ms since spawn. */
export async function waitReady(proc, { timeoutMs = 120_000, intervalMs = 20 } = {}) {
  const deadline = performance.now() + timeoutMs;
  let exited = false;
  void proc.exited.then(() => (exited = true));
  for (;;) {
    if (exited) throw new Error(`the process exited before it was ready:\n${proc.stderr()}`);
    const ok = await fetch(`${proc.base}/api/health/ready`, { signal: AbortSignal.timeout(2000) }).then(
      (r) => {
        void r.arrayBuffer().catch(() => {});
        return r.status === 200;
      },
      () => false,
    );
    if (ok) return performance.now() - proc.spawnedAt;
    if (performance.now() > deadline) throw new Error(`not ready after ${timeoutMs} ms:\n${proc.stderr()}`);
    await sleep(intervalMs);
  }
}

/** SIGTERM, then SIGKILL after `graceMs`; resolves with the exit. */
export async function stop(proc, graceMs = 15_000) {
  if (proc.child.exitCode !== null || proc.child.signalCode !== null) return proc.exited;
  proc.child.kill('SIGTERM');
  const timer = setTimeout(() => proc.child.kill('SIGKILL'), graceMs);
  try {
    return await proc.exited;
  } finally {
    clearTimeout(timer);
  }
}

/** Resident set size of a process in bytes (Linux /proc). */
export function rssBytes(pid) {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+)\s+kB/.exec(status)?.[1] ?? NaN);
  return kb * 1024;
}

/** Samples a process's RSS every `intervalMs` until stopped; returns the peak. */
export function rssSampler(pid, intervalMs = 50) {
  let peak = 0;
  const sample = () => {
    try {
      peak = Math.max(peak, rssBytes(pid));
    } catch {
      /* the process is gone */
    }
  };
  sample();
  const timer = setInterval(sample, intervalMs);
  return {
    stop() {
      clearInterval(timer);
      sample();
      return peak;
    },
  };
}

const CLK_TCK = 100; // USER_HZ: 100 on every Linux architecture Node runs on

/** CPU seconds (user + system) a process has used so far (Linux /proc). */
export function cpuSeconds(pid) {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name (which may contain spaces), from field 3 on: utime is 14, stime 15.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / CLK_TCK;
}

export const load1 = () => Number(os.loadavg()[0].toFixed(2));

/** JSON request against the service; throws on an unexpected status. */
export async function api(base, method, urlPath, { auth, body, expect = [200, 201] } = {}) {
  const res = await fetch(`${base}${urlPath}`, {
    method,
    headers: { ...(auth ? { authorization: auth } : {}), ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    body: body !== undefined ? JSON.stringify(body) : undefined,
    signal: AbortSignal.timeout(10_000),
  });
  const text = await res.text();
  if (!expect.includes(res.status)) throw new Error(`${method} ${urlPath}: ${res.status} ${text}`);
  return text ? JSON.parse(text) : undefined;
}

/** Runs `task(i)` for i in [0, count) with at most `concurrency` in flight; returns elapsed seconds. */
export async function runPool(count, concurrency, task) {
  let next = 0;
  const started = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) await task(next++);
    }),
  );
  return Number(process.hrtime.bigint() - started) / 1e9;
}

/** Rejects after `ms` (a section that hangs must not hold the run forever). */
export function withTimeout(promise, ms, what) {
  let timer;
  return Promise.race([
    promise.finally(() => clearTimeout(timer)),
    new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what} took longer than ${Math.round(ms / 1000)} s`)), ms);
    }),
  ]);
}

export const log = (...args) => process.stderr.write(`[bench] ${args.join(' ')}\n`);
