import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { Client } from 'pg';
import Stripe from 'stripe';
import { WEBHOOK_SECRET } from '../factories/payment-events';
import { freePort, ServiceProcess } from '../setup/service-process';

const run = promisify(execFile);

/** The newest PostgreSQL server binaries installed the Debian way. */
function postgresBinDir(): string {
  const root = '/usr/lib/postgresql';
  const versions = fs.existsSync(root) ? fs.readdirSync(root).filter((v) => fs.existsSync(path.join(root, v, 'bin', 'pg_ctl'))) : [];
  if (versions.length === 0) throw new Error(`No PostgreSQL server binaries under ${root}/*/bin`);
  versions.sort((a, b) => Number(b) - Number(a));
  return path.join(root, versions[0], 'bin');
}

/**
 * A PostgreSQL server of the test's own (its own data folder, port and socket
 * folder), so a test can stop and start it without touching the machine's
 * shared cluster. initdb refuses to run as root: as root the binaries run as
 * the `postgres` OS user.
 */
export class PrivatePostgres {
  private constructor(
    readonly dir: string,
    readonly port: number,
    private readonly bin: string,
  ) {}

  static async start(): Promise<PrivatePostgres> {
    const bin = postgresBinDir();
    await PrivatePostgres.removeOrphans(bin);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'apt-resilience-pg-'));
    // Which test process owns the server: a later run stops the servers of owners that died without cleaning up.
    fs.writeFileSync(path.join(dir, 'owner.pid'), String(process.pid));
    const pg = new PrivatePostgres(dir, await freePort(), bin);
    try {
      if (process.getuid?.() === 0) {
        const { uid, gid } = await PrivatePostgres.postgresUser();
        fs.chownSync(dir, uid, gid);
      }
      await pg.as(path.join(bin, 'initdb'), ['-D', pg.dataDir, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8']);
      await pg.startServer();
    } catch (err) {
      fs.rmSync(dir, { recursive: true, force: true });
      throw err;
    }
    return pg;
  }

  /** Servers left running by a test process that was killed (its afterAll never ran). */
  private static async removeOrphans(bin: string): Promise<void> {
    for (const entry of fs.readdirSync(os.tmpdir()).filter((e) => e.startsWith('apt-resilience-pg-'))) {
      const dir = path.join(os.tmpdir(), entry);
      let owner: number;
      try {
        owner = Number(fs.readFileSync(path.join(dir, 'owner.pid'), 'utf8'));
      } catch {
        continue;
      }
      if (isAlive(owner)) continue;
      const orphan = new PrivatePostgres(dir, 0, bin);
      await orphan.destroy().catch(() => fs.rmSync(dir, { recursive: true, force: true }));
    }
  }

  private static async postgresUser(): Promise<{ uid: number; gid: number }> {
    const { stdout } = await run('id', ['-u', 'postgres']);
    const { stdout: g } = await run('id', ['-g', 'postgres']);
    return { uid: Number(stdout.trim()), gid: Number(g.trim()) };
  }

  get dataDir(): string {
    return path.join(this.dir, 'data');
  }

  url(database = 'postgres'): string {
    return `postgres://postgres@127.0.0.1:${this.port}/${database}`;
  }

  /** Starts (again) the server, waiting until it accepts connections. */
  async startServer(): Promise<void> {
    // Durability settings off: only a machine crash would lose data, and the tests never crash the machine.
    const options = [
      `-p ${this.port}`,
      `-k ${this.dir}`,
      '-c listen_addresses=127.0.0.1',
      '-c fsync=off',
      '-c synchronous_commit=off',
      '-c full_page_writes=off',
      '-c shared_buffers=16MB',
      '-c max_connections=100',
    ].join(' ');
    await this.as(path.join(this.bin, 'pg_ctl'), ['-D', this.dataDir, '-o', options, '-l', path.join(this.dir, 'server.log'), '-w', '-t', '30', 'start']);
  }

  /** `fast` ends sessions cleanly; `immediate` aborts every process at once, like a crash of the server. */
  async stopServer(mode: 'fast' | 'immediate' = 'fast'): Promise<void> {
    await this.as(path.join(this.bin, 'pg_ctl'), ['-D', this.dataDir, '-m', mode, '-w', '-t', '30', 'stop']);
  }

  async createDatabase(name: string): Promise<string> {
    await this.query(`CREATE DATABASE "${name}"`);
    return this.url(name);
  }

  async query<T = Record<string, unknown>>(sql: string, params: unknown[] = [], database = 'postgres'): Promise<T[]> {
    const client = new Client({ connectionString: this.url(database) });
    await client.connect();
    try {
      return (await client.query(sql, params)).rows as T[];
    } finally {
      await client.end();
    }
  }

  /** Stops the server (if it runs) and removes its folder. */
  async destroy(): Promise<void> {
    try {
      if (fs.existsSync(path.join(this.dataDir, 'postmaster.pid'))) await this.stopServer('immediate');
    } finally {
      fs.rmSync(this.dir, { recursive: true, force: true });
    }
  }

  private async as(command: string, args: string[]): Promise<void> {
    const root = process.getuid?.() === 0;
    const file = root ? 'runuser' : command;
    const argv = root ? ['-u', 'postgres', '--', command, ...args] : args;
    await run(file, argv, { cwd: this.dir, timeout: 60_000, env: { PATH: process.env.PATH ?? '/usr/bin:/bin', LANG: 'C.UTF-8' } });
  }
}

function isAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export const ADMIN = 'apt_resilience-admin-token-0123456789abcdef';

/** Environment of a service on PostgreSQL for these tests. */
export function serviceEnv(databaseUrl: string, dataDir: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    DATABASE_URL: databaseUrl,
    DATA_DIR: dataDir,
    BOOTSTRAP_ADMIN_TOKEN: ADMIN,
    RATE_LIMIT_PER_MINUTE: '0',
    LOG_LEVEL: 'warn',
    DATABASE_CONNECT_TIMEOUT_MS: '1000',
    PAYMENT_WEBHOOK_SECRET: WEBHOOK_SECRET,
    PAYMENT_PRICE_PLANS: 'price_pro=Pro',
    ...extra,
  };
}

export interface Timed {
  status: number;
  body: unknown;
  ms: number;
}

/** One request with a hard client-side bound (a hang shows up as status 0 after `limitMs`, never as a stuck test). */
export async function call(url: string, init: RequestInit & { auth?: string } = {}, limitMs = 10_000): Promise<Timed> {
  const started = performance.now();
  const headers = new Headers(init.headers);
  if (init.auth) headers.set('Authorization', `Bearer ${init.auth}`);
  if (typeof init.body === 'string' && !headers.has('Content-Type')) headers.set('Content-Type', 'application/json');
  try {
    const res = await fetch(url, { ...init, headers, signal: AbortSignal.timeout(limitMs) });
    const text = await res.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      /* not JSON */
    }
    return { status: res.status, body, ms: performance.now() - started };
  } catch (err) {
    return { status: 0, body: String(err), ms: performance.now() - started };
  }
}

export const json = (method: string, body: unknown, auth?: string): RequestInit & { auth?: string } => ({ method, body: JSON.stringify(body), auth });

/** Signs and delivers one payment event as the provider does. */
export function deliver(baseUrl: string, payload: object): Promise<Timed> {
  const body = JSON.stringify(payload);
  const signature = Stripe.webhooks.generateTestHeaderString({ payload: body, secret: WEBHOOK_SECRET });
  return call(`${baseUrl}/api/webhooks/payment`, { method: 'POST', body, headers: { 'Content-Type': 'application/json', 'payment-signature': signature } }, 30_000);
}

/** Runs `fn` over `items` with at most `limit` at a time, keeping the order of results. */
export async function pool<T, R>(items: T[], limit: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i], i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

export interface CreatedUser {
  user_id: number;
  team_id: number;
  email: string;
  token: string;
}

export async function createUser(baseUrl: string, email: string): Promise<CreatedUser> {
  const res = await call(`${baseUrl}/api/admin/users`, json('POST', { email, team_name: email }, ADMIN));
  if (res.status !== 201) throw new Error(`create user ${email}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body as CreatedUser;
}

/** SIGTERM (or the given signal) and the exit, bounded: a process that ignores it is killed and the test fails on its exit. */
export async function stopService(svc: ServiceProcess, signal: NodeJS.Signals = 'SIGTERM', limitMs = 20_000) {
  if (svc.child.exitCode !== null || svc.child.signalCode !== null) return svc.exited;
  svc.child.kill(signal);
  const timer = setTimeout(() => svc.child.kill('SIGKILL'), limitMs);
  try {
    return await svc.exited;
  } finally {
    clearTimeout(timer);
  }
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function tempDir(prefix: string): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}
