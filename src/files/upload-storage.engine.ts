import { Logger } from '@nestjs/common';
import type { Request } from 'express';
import type { StorageEngine } from 'multer';
import { randomUUID } from 'node:crypto';
import { Transform } from 'node:stream';
import { PayloadTooLarge } from '../common/errors/errors';
import { detectContentType, DETECTION_BYTES } from './content-type';
import { Sha256Pool } from './sha256-pool';
import { StorageDriver, storageKeyOf } from './storage/storage-driver';

/** What the engine adds to multer's file object once a part is stored. */
export interface StoredPart {
  fileId: string;
  storageKey: string;
  size: number;
  sha256: string;
  contentType: string;
}

export type UploadedPart = Express.Multer.File & StoredPart;

/**
 * A multer storage engine that streams each file part straight into the
 * storage driver under a fresh id, counting its size, hashing it (SHA-256, on a worker thread)
 * and keeping only its first bytes for content-type detection: memory does
 * not grow with the file. A part over the size limit fails the stream, which
 * makes the driver drop what it wrote.
 */
export class StreamingStorageEngine implements StorageEngine {
  private readonly logger = new Logger(StreamingStorageEngine.name);

  constructor(
    private readonly storage: StorageDriver,
    private readonly hashing: Sha256Pool,
    private readonly maxFileBytes: number,
  ) {}

  _handleFile(_req: Request, file: Express.Multer.File, callback: (error?: unknown, info?: Partial<UploadedPart>) => void): void {
    this.store(file).then(
      (info) => callback(null, info),
      (err: unknown) => callback(err),
    );
  }

  /** Called by multer for the parts already stored when the request fails. */
  _removeFile(_req: Request, file: Express.Multer.File, callback: (error: Error | null) => void): void {
    const key = (file as Partial<UploadedPart>).storageKey;
    if (!key) return callback(null);
    this.storage.delete(key).then(
      () => callback(null),
      (err: unknown) => {
        this.logger.warn(`Could not remove ${key} of a failed upload: ${String(err)}`);
        callback(err as Error);
      },
    );
  }

  private async store(file: Express.Multer.File): Promise<StoredPart> {
    const fileId = randomUUID();
    const storageKey = storageKeyOf(fileId);
    const hash = this.hashing.start();
    const head: Buffer[] = [];
    let headBytes = 0;
    let size = 0;
    const limit = this.maxFileBytes;
    const meter = new Transform({
      // Room for a few socket reads, so hashing and storage writes overlap (memory stays bounded).
      highWaterMark: 1024 * 1024,
      transform(chunk: Buffer, _encoding, done) {
        size += chunk.length;
        if (size > limit) {
          return done(new PayloadTooLarge(`File "${file.originalname}" is larger than ${limit} bytes (MAX_UPLOAD_FILE_BYTES)`));
        }
        if (headBytes < DETECTION_BYTES) {
          const slice = chunk.subarray(0, DETECTION_BYTES - headBytes);
          // A copy: keeping a view would pin the whole chunk.
          head.push(Buffer.from(slice));
          headBytes += slice.length;
        }
        this.push(chunk);
        // The chunk goes on to storage at once; the next one waits only if the hashing worker is far behind.
        const hashed = hash.update(chunk);
        if (hashed) hashed.then(() => done(), done);
        else done();
      },
    });
    file.stream.pipe(meter);
    // pipe() does not forward errors: a request cut mid-file must fail the driver's write.
    file.stream.once('error', (err) => meter.destroy(err));
    try {
      await this.storage.put(storageKey, meter);
      return {
        fileId,
        storageKey,
        size,
        sha256: await hash.digest(),
        contentType: await detectContentType(Buffer.concat(head), file.originalname),
      };
    } catch (err) {
      // Whatever failed, this part leaves nothing: multer only removes parts that were reported stored.
      hash.discard();
      await this.storage.delete(storageKey).catch(() => undefined);
      throw err;
    }
  }
}
