// Upload benchmark: `npm run bench:upload` (builds first).
//
// Starts the built service (embedded database in a temporary DATA_DIR, or the
// PostgreSQL of DATABASE_URL), creates a user through the admin API, uploads
// one generated file of BENCH_BYTES (default 1 GiB) as multipart/form-data,
// and measures throughput and the service process's peak RSS growth (sampled
// from /proc/<pid>/status). The same request goes to a bare Node `http`
// server, in its own process, that streams the body to disk. Targets: RSS
// growth under 64 MiB, throughput at least 70% of the bare server.
// The two servers take turns for BENCH_ROUNDS rounds (default 3) and the
// medians are compared, so a burst of load from elsewhere on the machine
// does not decide the result; every round is printed too.
//
// Environment: BENCH_BYTES, BENCH_ROUNDS, DATABASE_URL (optional), BENCH_KEEP=1 keeps the temporary folder.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const MiB = 1024 * 1024;
const SIZE = Number(process.env.BENCH_BYTES ?? 1024 * MiB);
const CHUNK = randomBytes(MiB);
const TOKEN = `apt_bench_${randomBytes(24).toString('hex')}`;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const SAMPLE_MS = 20;
const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..');

if (process.argv[2] === '--bare-server') {
  bareServer(process.argv[3]);
} else {
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}

/** The baseline: a plain http server piping each request body into a file. */
function bareServer(dir) {
  let n = 0;
  const server = http.createServer((req, res) => {
    const file = path.join(dir, `bare-${++n}`);
    const out = fs.createWriteStream(file);
    req.pipe(out);
    out.on('finish', () => {
      res.setHeader('Content-Type', 'application/json');
      res.end(JSON.stringify({ size: out.bytesWritten }));
      fs.rmSync(file, { force: true });
    });
  });
  server.listen(0, '127.0.0.1', () => process.stdout.write(`${JSON.stringify({ port: server.address().port })}\n`));
}

async function main() {
  if (!fs.existsSync(path.join(root, 'dist', 'main.js'))) throw new Error('dist/main.js is missing: run "npm run build"');
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'apt-bench-'));
  const children = [];
  try {
    const bare = spawn(process.execPath, [fileURLToPath(import.meta.url), '--bare-server', tmp], { stdio: ['ignore', 'pipe', 'inherit'] });
    children.push(bare);
    const { port: barePort } = JSON.parse(await firstLine(bare.stdout));

    const port = await freePort();
    const service = spawn(process.execPath, [path.join(root, 'dist', 'main.js')], {
      cwd: root,
      stdio: ['ignore', 'ignore', 'inherit'],
      env: {
        PATH: process.env.PATH,
        NODE_ENV: 'production',
        HOST: '127.0.0.1',
        PORT: String(port),
        DATA_DIR: path.join(tmp, 'data'),
        ...(process.env.DATABASE_URL ? { DATABASE_URL: process.env.DATABASE_URL } : {}),
        BOOTSTRAP_ADMIN_TOKEN: TOKEN,
        LOG_LEVEL: 'warn',
        RATE_LIMIT_PER_MINUTE: '0',
        MAX_UPLOAD_FILE_BYTES: String(SIZE),
        PLAN_LIMITS: JSON.stringify({ Free: { storage_bytes: null } }),
      },
    });
    children.push(service);
    await waitReady(port);
    const user = await json(port, 'POST', '/api/admin/users', TOKEN, { email: `bench-${Date.now()}@example.com` });

    console.log(`Uploading ${(SIZE / MiB).toFixed(0)} MiB to each server (${process.env.DATABASE_URL ? 'PostgreSQL' : 'embedded database'}, local storage)...`);
    const row = (name, r) =>
      `${name.padEnd(14)} ${r.seconds.toFixed(2).padStart(6)} s  ${r.mibPerSecond.toFixed(1).padStart(6)} MiB/s  CPU ${r.cpu.toFixed(2)} s  ` +
      `peak RSS growth ${r.rssGrowthMiB.toFixed(1).padStart(6)} MiB (VmHWM growth ${r.hwmGrowthMiB.toFixed(1)} MiB)`;
    const bareRuns = [];
    const serviceRuns = [];
    for (let round = 1; round <= ROUNDS; round++) {
      const bareResult = await measure(bare.pid, barePort, '/upload', undefined);
      const serviceResult = await measure(service.pid, port, '/api/share/files/upload', user.token);
      const uploaded = JSON.parse(serviceResult.body);
      if (serviceResult.status !== 200 || uploaded.files?.[0]?.size !== SIZE) {
        throw new Error(`The service answered ${serviceResult.status}: ${serviceResult.body.slice(0, 500)}`);
      }
      await json(port, 'DELETE', `/api/files/${uploaded.files[0].id}`, user.token);
      console.log(`round ${round}:`);
      console.log(`  ${row('bare node http', bareResult)}`);
      console.log(`  ${row('service', serviceResult)}`);
      bareRuns.push(bareResult);
      serviceRuns.push(serviceResult);
    }

    const bareSpeed = median(bareRuns.map((r) => r.mibPerSecond));
    const serviceSpeed = median(serviceRuns.map((r) => r.mibPerSecond));
    const rssGrowth = Math.max(...serviceRuns.map((r) => r.rssGrowthMiB));
    const ratio = serviceSpeed / bareSpeed;
    console.log(`load average now: ${os.loadavg().map((l) => l.toFixed(2)).join(' ')} on ${os.availableParallelism()} CPUs`);
    console.log(`median throughput: bare ${bareSpeed.toFixed(1)} MiB/s, service ${serviceSpeed.toFixed(1)} MiB/s`);
    console.log(`throughput ratio service/bare: ${(ratio * 100).toFixed(1)}% (target >= 70%): ${ratio >= 0.7 ? 'met' : 'MISSED'}`);
    console.log(`service peak RSS growth (worst round, VmRSS sampled every ${SAMPLE_MS} ms): ${rssGrowth.toFixed(1)} MiB (target < 64 MiB): ${rssGrowth < 64 ? 'met' : 'MISSED'}`);
    console.log(
      JSON.stringify({
        bytes: SIZE,
        rounds: ROUNDS,
        bare_mib_per_s: bareRuns.map((r) => round1(r.mibPerSecond)),
        service_mib_per_s: serviceRuns.map((r) => round1(r.mibPerSecond)),
        service_rss_growth_mib: serviceRuns.map((r) => round1(r.rssGrowthMiB)),
        bare_cpu_s: bareRuns.map((r) => Math.round(r.cpu * 100) / 100),
        service_cpu_s: serviceRuns.map((r) => Math.round(r.cpu * 100) / 100),
        load_average: os.loadavg().map(round1),
        ratio: Math.round(ratio * 1000) / 1000,
      }),
    );
  } finally {
    for (const child of children) child.kill('SIGTERM');
    await Promise.all(children.map((child) => (child.exitCode === null ? new Promise((r) => child.once('exit', r)) : undefined)));
    if (!process.env.BENCH_KEEP) fs.rmSync(tmp, { recursive: true, force: true });
  }
}

/** One upload of SIZE generated bytes, streamed with backpressure, while sampling the server's memory. */
async function measure(pid, port, urlPath, token) {
  await new Promise((r) => setTimeout(r, 500));
  const before = memory(pid);
  let peakRss = before.rss;
  const sampler = setInterval(() => {
    peakRss = Math.max(peakRss, memory(pid).rss);
  }, SAMPLE_MS);
  // Shaped like curl's boundary (24 dashes, 16 hex digits); browsers send ones of similar length.
  // busboy's boundary search skips ahead by the boundary's length, so its length matters.
  const boundary = `------------------------${randomBytes(8).toString('hex')}`;
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="bench.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const cpuBefore = cpuSeconds(pid);
  const started = process.hrtime.bigint();
  const result = await new Promise((resolve, reject) => {
    const req = http.request({
      host: '127.0.0.1',
      port,
      method: 'POST',
      path: urlPath,
      headers: {
        'Content-Type': `multipart/form-data; boundary=${boundary}`,
        'Content-Length': String(head.length + SIZE + tail.length),
        ...(token ? { Authorization: `Bearer ${token}` } : {}),
      },
    });
    req.on('error', reject);
    req.on('response', (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode, body }));
    });
    (async () => {
      req.write(head);
      for (let sent = 0; sent < SIZE; sent += CHUNK.length) {
        const piece = SIZE - sent >= CHUNK.length ? CHUNK : CHUNK.subarray(0, SIZE - sent);
        if (!req.write(piece)) await new Promise((r) => req.once('drain', r));
      }
      req.end(tail);
    })().catch(reject);
  });
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const cpu = cpuSeconds(pid) - cpuBefore;
  clearInterval(sampler);
  const after = memory(pid);
  peakRss = Math.max(peakRss, after.rss);
  return {
    ...result,
    seconds,
    cpu,
    mibPerSecond: SIZE / MiB / seconds,
    rssGrowthMiB: (peakRss - before.rss) / MiB,
    hwmGrowthMiB: (after.hwm - before.hwm) / MiB,
  };
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

function round1(x) {
  return Math.round(x * 10) / 10;
}

/** CPU time (user + system, all threads) a process has used, in seconds. */
function cpuSeconds(pid) {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  // utime and stime are fields 14 and 15 of /proc/<pid>/stat, in clock ticks (100 per second on Linux).
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** VmRSS and VmHWM of a process, in bytes. */
function memory(pid) {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (name) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0) * 1024;
  return { rss: kib('VmRSS'), hwm: kib('VmHWM') };
}

function firstLine(stream) {
  return new Promise((resolve, reject) => {
    let buffered = '';
    stream.setEncoding('utf8');
    stream.on('data', (c) => {
      buffered += c;
      const end = buffered.indexOf('\n');
      if (end >= 0) resolve(buffered.slice(0, end));
    });
    stream.on('end', () => reject(new Error('The bare server exited before listening')));
  });
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

async function waitReady(port) {
  const deadline = Date.now() + 120_000;
  for (;;) {
    try {
      const res = await fetch(`http://127.0.0.1:${port}/api/health/ready`);
      if (res.status === 200) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error('The service did not become ready within 120 s');
    await new Promise((r) => setTimeout(r, 250));
  }
}

async function json(port, method, urlPath, token, body) {
  const res = await fetch(`http://127.0.0.1:${port}${urlPath}`, {
    method,
    headers: { Authorization: `Bearer ${token}`, ...(body ? { 'Content-Type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  if (!res.ok) throw new Error(`${method} ${urlPath}: ${res.status} ${await res.text()}`);
  return res.json();
}
