import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';

/**
 * Embedded PostgreSQL (PGlite) served on a private Unix socket, so that TypeORM
 * talks to it with the ordinary `pg` driver: one wire protocol, one set of
 * migrations, real per-connection transactions (the socket server keeps a
 * transaction's statements together; `typeorm-pglite` shares one session and
 * lost rolled-back and concurrent writes in FACTS.md's measurements).
 *
 * PGlite is single-process: a data folder opened twice loses writes. The owner
 * holds `<dataDir>/postmaster.lock` (our own file, not PostgreSQL's), holding
 * its pid; another process finds the pid alive and stops at once. A lock whose
 * process is gone (even after SIGKILL) is taken over.
 */
export class DatabaseInUseError extends Error {
  constructor(
    readonly dataDir: string,
    readonly pid: number,
  ) {
    super(
      `The embedded database in ${dataDir} is in use by another process (pid ${pid}). ` +
        'The embedded database belongs to one process: stop the running service first, ' +
        'or set DATABASE_URL to use PostgreSQL, or use the admin HTTP API.',
    );
    this.name = 'DatabaseInUseError';
  }
}

export interface EmbeddedPostgresOptions {
  /** Folder persisted on disk; omit for an in-memory database (tests). */
  dataDir?: string;
  /** A dump made by `dumpDataDir()`, to start from (tests use a migrated template). */
  loadDataDir?: Blob;
  /** Connections the socket server accepts; the pool must not be larger. */
  maxConnections: number;
}

const LOCK_FILE = 'postmaster.lock';

function processAlive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
  // A recycled pid that now belongs to something other than Node is not our owner.
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('node');
  } catch {
    return true;
  }
}

function acquireLock(dataDir: string): () => void {
  const file = path.join(dataDir, LOCK_FILE);
  for (let attempt = 0; attempt < 5; attempt++) {
    try {
      const fd = fs.openSync(file, 'wx', 0o600);
      fs.writeSync(fd, JSON.stringify({ pid: process.pid, started_at: new Date().toISOString() }));
      fs.closeSync(fd);
      return () => {
        try {
          const owner = JSON.parse(fs.readFileSync(file, 'utf8')) as { pid?: number };
          if (owner.pid === process.pid) fs.unlinkSync(file);
        } catch {
          /* already gone */
        }
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    let pid = 0;
    try {
      pid = Number((JSON.parse(fs.readFileSync(file, 'utf8')) as { pid?: unknown }).pid) || 0;
    } catch {
      // Half-written by a process that died while writing it: stale.
    }
    if (pid > 0 && processAlive(pid)) throw new DatabaseInUseError(dataDir, pid);
    fs.rmSync(file, { force: true });
  }
  throw new Error(`Could not take the lock ${file}`);
}

/** Extended-protocol messages that leave a sequence open until the client's Sync. */
const EXTENDED_MESSAGES = new Set(['P', 'B', 'D', 'E', 'C', 'H'].map((c) => c.charCodeAt(0)));
const SYNC = 'S'.charCodeAt(0);
const SIMPLE_QUERY = 'Q'.charCodeAt(0);

interface SocketQueryQueue {
  db: Pick<PGlite, 'isInTransaction' | 'runExclusive' | 'execProtocolRawStream' | 'exec'>;
}

/**
 * pglite-socket queues each protocol message on its own and keeps one
 * connection's messages together only inside a transaction. The `pg` driver
 * sends a parameterised query as Parse/Bind/Describe/Execute/Sync, so two
 * concurrent connections interleave on PGlite's single backend: one's Bind
 * meets the other's unnamed statement ("portal \"\" does not exist", or
 * worse, another query's rows). The queue is told "in a transaction" while a
 * sequence is open (Parse... until Sync), so it serves that connection alone
 * until its Sync, as it already does for transactions.
 */
function keepExtendedQueriesTogether(server: PGLiteSocketServer): void {
  const queue = (server as unknown as { queryQueue: SocketQueryQueue }).queryQueue;
  const db = queue.db;
  let open = false;
  queue.db = {
    isInTransaction: () => open || db.isInTransaction(),
    runExclusive: (fn) => db.runExclusive(fn),
    exec: (query, options) => {
      open = false;
      return db.exec(query, options);
    },
    execProtocolRawStream: async (message, options) => {
      const type = message[0];
      try {
        return await db.execProtocolRawStream(message, options);
      } finally {
        if (type === SYNC || type === SIMPLE_QUERY) open = false;
        else if (EXTENDED_MESSAGES.has(type)) open = true;
      }
    },
  };
}

export class EmbeddedPostgres {
  private constructor(
    readonly db: PGlite,
    private readonly server: PGLiteSocketServer,
    private readonly socketDir: string,
    private readonly releaseLock: () => void,
  ) {}

  /** `postgres://` URL of the Unix socket (host is the socket's folder). */
  get url(): string {
    return `postgres://postgres@localhost/postgres?host=${encodeURIComponent(this.socketDir)}`;
  }

  get socketHost(): string {
    return this.socketDir;
  }

  static async start(options: EmbeddedPostgresOptions): Promise<EmbeddedPostgres> {
    let release = () => {};
    if (options.dataDir) {
      fs.mkdirSync(options.dataDir, { recursive: true, mode: 0o700 });
      release = acquireLock(options.dataDir);
    }
    try {
      const db = await PGlite.create({
        dataDir: options.dataDir ? path.join(options.dataDir, 'pgdata') : undefined,
        loadDataDir: options.loadDataDir,
      });
      // A short private folder: socket paths are limited to ~107 bytes, and 0700
      // keeps other local users away from a server that has no passwords.
      const socketDir = fs.mkdtempSync(path.join(os.tmpdir(), 'apt-pg-'));
      fs.chmodSync(socketDir, 0o700);
      const server = new PGLiteSocketServer({
        db,
        path: path.join(socketDir, '.s.PGSQL.5432'),
        maxConnections: options.maxConnections,
      });
      keepExtendedQueriesTogether(server);
      await server.start();
      return new EmbeddedPostgres(db, server, socketDir, release);
    } catch (err) {
      release();
      throw err;
    }
  }

  async stop(): Promise<void> {
    try {
      await this.server.stop();
      await this.db.close();
    } finally {
      fs.rmSync(this.socketDir, { recursive: true, force: true });
      this.releaseLock();
    }
  }
}
