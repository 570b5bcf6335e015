import { Logger, OnApplicationShutdown } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, open, readdir, rename, rm, stat } from 'node:fs/promises';
import { hostname } from 'node:os';
import * as path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { assertStorageKey, ByteRange, StorageDriver, StoredObject } from './storage-driver';

const WRITE_BUFFER_BYTES = 1024 * 1024;

/**
 * Files on local disk under `<DATA_DIR>/files`. Uploads are written to a
 * partial file and renamed into place only once complete, so a reader never
 * sees a partial file.
 *
 * Each process writes its partial files in its own `tmp/<host>-<pid>-<random>/`
 * folder, removed at shutdown. At start, the folders of processes of this
 * host that no longer run (a crash) are removed; those of live processes
 * sharing DATA_DIR (another instance on PostgreSQL) are left alone.
 */
export class LocalStorageDriver extends StorageDriver implements OnApplicationShutdown {
  readonly name = 'local';
  private readonly logger = new Logger(LocalStorageDriver.name);
  readonly root: string;
  private readonly tmpRoot: string;
  readonly tmpDir: string;

  constructor(dataDir: string) {
    super();
    this.root = path.join(dataDir, 'files');
    this.tmpRoot = path.join(this.root, 'tmp');
    this.tmpDir = path.join(this.tmpRoot, `${hostname()}-${process.pid}-${randomUUID().slice(0, 8)}`);
  }

  /** Partial files left by a crash are removed before the first upload. */
  async init(): Promise<void> {
    await mkdir(this.tmpRoot, { recursive: true });
    for (const entry of await readdir(this.tmpRoot)) {
      if (isOwnedByLiveProcess(entry)) continue;
      await rm(path.join(this.tmpRoot, entry), { recursive: true, force: true });
      this.logger.log(`Removed partial upload files left in ${path.join(this.tmpRoot, entry)}`);
    }
    await mkdir(this.tmpDir, { recursive: true });
  }

  /** Runs after the HTTP server has drained (ShutdownService), so no upload is still writing here. */
  async onApplicationShutdown(): Promise<void> {
    try {
      await rm(this.tmpDir, { recursive: true, force: true });
    } catch (err) {
      this.logger.warn(`Could not remove ${this.tmpDir}: ${String(err)}`);
    }
  }

  async put(key: string, body: Readable): Promise<StoredObject> {
    const target = this.pathOf(key);
    const temp = path.join(this.tmpDir, `${randomUUID()}.part`);
    // A larger buffer than the 16 KiB default lets parsing and hashing run while the disk writes.
    const out = createWriteStream(temp, { flags: 'wx', highWaterMark: WRITE_BUFFER_BYTES });
    try {
      await pipeline(body, out);
      await mkdir(path.dirname(target), { recursive: true });
      await rename(temp, target);
      return { key, size: out.bytesWritten };
    } catch (err) {
      await rm(temp, { force: true });
      throw err;
    }
  }

  async get(key: string, range?: ByteRange): Promise<Readable> {
    // Opened first so a missing file rejects here, before any response header is sent.
    const handle = await open(this.pathOf(key), 'r');
    return handle.createReadStream(range ? { start: range.start, end: range.end } : {});
  }

  async delete(key: string): Promise<void> {
    await rm(this.pathOf(key), { force: true });
  }

  async exists(key: string): Promise<boolean> {
    try {
      return (await stat(this.pathOf(key))).isFile();
    } catch {
      return false;
    }
  }

  private pathOf(key: string): string {
    assertStorageKey(key);
    return path.join(this.root, key);
  }
}

/** A `<host>-<pid>-<random>` folder of a process still running here, or of another host (which we cannot check). */
function isOwnedByLiveProcess(entry: string): boolean {
  const match = /^(.+)-(\d+)-[0-9a-f]{8}$/.exec(entry);
  if (!match) return false;
  if (match[1] !== hostname()) return true;
  try {
    process.kill(Number(match[2]), 0);
    return true;
  } catch (err) {
    // EPERM: the process exists but belongs to someone else.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
