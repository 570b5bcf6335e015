import { Injectable, Logger, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';

/**
 * SHA-256 of uploads, computed on worker threads. On the event loop, hashing
 * took as long as receiving and writing the bytes (about 1 s per GiB here),
 * halving upload throughput; on a worker it runs beside the parsing and the
 * disk writes. The event loop only copies each chunk into a 1 MiB batch that
 * is then transferred (not copied again) to the worker.
 */

const WORKER_SOURCE = `
const { parentPort } = require('node:worker_threads');
const { createHash } = require('node:crypto');
const hashes = new Map();
parentPort.on('message', (m) => {
  if (m.type === 'update') {
    let hash = hashes.get(m.id);
    if (!hash) hashes.set(m.id, (hash = createHash('sha256')));
    hash.update(new Uint8Array(m.buffer, 0, m.length));
    // The batch goes back for reuse, so memory does not churn through a new buffer per MiB.
    parentPort.postMessage({ type: 'ack', id: m.id, length: m.length, buffer: m.buffer }, [m.buffer]);
  } else if (m.type === 'digest') {
    const hash = hashes.get(m.id) ?? createHash('sha256');
    hashes.delete(m.id);
    parentPort.postMessage({ type: 'digest', id: m.id, hex: hash.digest('hex') });
  } else if (m.type === 'discard') {
    hashes.delete(m.id);
  }
});
`;

const BATCH_BYTES = 1024 * 1024;
/** Bytes handed to a worker and not yet hashed before a session makes its stream wait: bounds memory. */
const MAX_IN_FLIGHT_BYTES = 4 * BATCH_BYTES;

type WorkerReply = { type: 'ack'; id: number; length: number; buffer: ArrayBuffer } | { type: 'digest'; id: number; hex: string };

/** One file's running hash. `update` resolves when the caller may send more (backpressure). */
export interface HashSession {
  update(chunk: Buffer): Promise<void> | undefined;
  digest(): Promise<string>;
  discard(): void;
}

class PooledWorker {
  readonly worker: Worker;
  readonly sessions = new Map<number, WorkerSession>();

  constructor(onExit: (w: PooledWorker) => void) {
    this.worker = new Worker(WORKER_SOURCE, { eval: true });
    // Idle workers must not keep a process (a CLI run, a test) alive.
    this.worker.unref();
    this.worker.on('message', (reply: WorkerReply) => this.sessions.get(reply.id)?.onReply(reply));
    const fail = (err: Error) => {
      for (const session of this.sessions.values()) session.fail(err);
      this.sessions.clear();
      onExit(this);
    };
    this.worker.on('error', fail);
    this.worker.on('exit', (code) => fail(new Error(`SHA-256 worker exited with code ${code}`)));
  }
}

class WorkerSession implements HashSession {
  private batch: Buffer | undefined;
  private batchLength = 0;
  private readonly spare: Buffer[] = [];
  private inFlight = 0;
  private drained: (() => void) | undefined;
  private result: { resolve: (hex: string) => void; reject: (err: Error) => void } | undefined;
  private error: Error | undefined;

  constructor(
    private readonly owner: PooledWorker,
    private readonly id: number,
  ) {
    owner.sessions.set(id, this);
  }

  update(chunk: Buffer): Promise<void> | undefined {
    if (this.error) return Promise.reject(this.error);
    let offset = 0;
    while (offset < chunk.length) {
      // allocUnsafeSlow: a batch owns its whole ArrayBuffer, so it can be transferred.
      this.batch ??= this.spare.pop() ?? Buffer.allocUnsafeSlow(BATCH_BYTES);
      const copied = chunk.copy(this.batch, this.batchLength, offset);
      this.batchLength += copied;
      offset += copied;
      if (this.batchLength === BATCH_BYTES) this.flush();
    }
    if (this.inFlight < MAX_IN_FLIGHT_BYTES) return undefined;
    return new Promise<void>((resolve) => (this.drained = resolve));
  }

  digest(): Promise<string> {
    if (this.error) return Promise.reject(this.error);
    this.flush();
    return new Promise<string>((resolve, reject) => {
      this.result = { resolve, reject };
      this.owner.worker.postMessage({ type: 'digest', id: this.id });
    });
  }

  discard(): void {
    if (!this.owner.sessions.delete(this.id)) return;
    this.owner.worker.postMessage({ type: 'discard', id: this.id });
  }

  onReply(reply: WorkerReply): void {
    if (reply.type === 'ack') {
      this.inFlight -= reply.length;
      this.spare.push(Buffer.from(reply.buffer));
      if (this.drained && this.inFlight < MAX_IN_FLIGHT_BYTES) {
        this.drained();
        this.drained = undefined;
      }
    } else {
      this.owner.sessions.delete(this.id);
      this.result?.resolve(reply.hex);
    }
  }

  fail(err: Error): void {
    this.error = err;
    this.result?.reject(err);
    this.drained?.();
  }

  private flush(): void {
    if (!this.batch || this.batchLength === 0) return;
    const buffer = this.batch.buffer as ArrayBuffer;
    this.owner.worker.postMessage({ type: 'update', id: this.id, buffer, length: this.batchLength }, [buffer]);
    this.inFlight += this.batchLength;
    this.batch = undefined;
    this.batchLength = 0;
  }
}

@Injectable()
export class Sha256Pool implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger(Sha256Pool.name);
  private readonly size = Math.max(1, Math.min(4, availableParallelism() - 1));
  private readonly workers: PooledWorker[] = [];
  private nextId = 0;

  /** Workers start with the app, so the first upload does not pay for them. */
  onModuleInit(): void {
    while (this.workers.length < this.size) this.spawn();
  }

  /** A new running hash, on the least busy worker (a worker that died is replaced). */
  start(): HashSession {
    while (this.workers.length < this.size) this.spawn();
    const worker = this.workers.reduce((a, b) => (b.sessions.size < a.sessions.size ? b : a));
    return new WorkerSession(worker, ++this.nextId);
  }

  private spawn(): void {
    this.workers.push(
      new PooledWorker((dead) => {
        const index = this.workers.indexOf(dead);
        if (index >= 0) this.workers.splice(index, 1);
      }),
    );
  }

  async onApplicationShutdown(): Promise<void> {
    const workers = this.workers.splice(0);
    await Promise.all(workers.map((w) => w.worker.terminate()));
    if (workers.length > 0) this.logger.debug(`Stopped ${workers.length} SHA-256 worker(s)`);
  }
}
