import { Logger, OnApplicationShutdown } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, open, rename, rm, stat } from 'node:fs/promises';
import * as path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { assertStorageKey, ByteRange, StorageDriver, StoredObject } from './storage-driver';

const WRITE_BUFFER_BYTES = 1024 * 1024;

/**
 * Files on local disk under `<DATA_DIR>/files`. Uploads are written to
 * `tmp/` and renamed into place only once complete, so a reader never sees a
 * partial file; `tmp/` is emptied at start (after a crash) and at shutdown.
 */
export class LocalStorageDriver extends StorageDriver implements OnApplicationShutdown {
  readonly name = 'local';
  private readonly logger = new Logger(LocalStorageDriver.name);
  readonly root: string;
  readonly tmpDir: string;

  constructor(dataDir: string) {
    super();
    this.root = path.join(dataDir, 'files');
    this.tmpDir = path.join(this.root, 'tmp');
  }

  /** Partial files left by a crash are removed before the first upload. */
  async init(): Promise<void> {
    await rm(this.tmpDir, { recursive: true, force: true });
    await mkdir(this.tmpDir, { recursive: true });
  }

  /** Runs after the HTTP server has drained (ShutdownService), so no upload is still writing here. */
  async onApplicationShutdown(): Promise<void> {
    try {
      await rm(this.tmpDir, { recursive: true, force: true });
    } catch (err) {
      this.logger.warn(`Could not empty ${this.tmpDir}: ${String(err)}`);
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
