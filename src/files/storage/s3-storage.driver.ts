import {
  AbortMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  ListMultipartUploadsCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { Logger, OnApplicationShutdown } from '@nestjs/common';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { AppConfig } from '../../config/config';
import { assertStorageKey, ByteRange, StorageDriver, StoredObject } from './storage-driver';

/** Objects of this service live under this prefix, so the bucket can be shared. */
const PREFIX = 'files/';
/** lib-storage buffers up to queueSize × partSize per upload: 2 × 8 MiB keeps memory flat. */
const PART_SIZE = 8 * 1024 * 1024;
const QUEUE_SIZE = 2;
/**
 * Multipart uploads older than this at start are leftovers of a crashed
 * instance. Younger ones may belong to another instance still uploading.
 */
const STALE_MULTIPART_MS = 60 * 60 * 1000;

type S3Settings = AppConfig['storage']['s3'];

/** Any S3-compatible store (AWS, MinIO, R2, ...), for several instances sharing files. */
export class S3StorageDriver extends StorageDriver implements OnApplicationShutdown {
  readonly name = 's3';
  private readonly logger = new Logger(S3StorageDriver.name);
  private readonly client: S3Client;
  private readonly bucket: string;
  private readonly inFlight = new Set<Upload>();

  constructor(settings: S3Settings) {
    super();
    if (!settings.bucket) throw new Error('S3_BUCKET is required when STORAGE_DRIVER=s3');
    this.bucket = settings.bucket;
    this.client = new S3Client({
      region: settings.region,
      endpoint: settings.endpoint,
      // Stores other than AWS rarely have virtual-host DNS for buckets.
      forcePathStyle: Boolean(settings.endpoint),
      credentials:
        settings.accessKeyId && settings.secretAccessKey
          ? { accessKeyId: settings.accessKeyId, secretAccessKey: settings.secretAccessKey }
          : undefined,
      // With the SDK's default checksums a streamed upload of unknown length was stored corrupted (FACTS.md).
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
  }

  async init(): Promise<void> {
    try {
      await this.client.send(new HeadBucketCommand({ Bucket: this.bucket }));
    } catch (err) {
      const status = (err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
      const reason = status === 404 ? 'it does not exist' : status === 403 ? 'access denied' : errorText(err);
      throw new Error(`S3 bucket "${this.bucket}" is not usable (${reason}): create it or fix S3_BUCKET, S3_ENDPOINT and the credentials`, {
        cause: err,
      });
    }
    await this.abortStaleMultipartUploads();
  }

  /** Uploads cut at shutdown are aborted so their parts do not linger in the bucket. */
  async onApplicationShutdown(): Promise<void> {
    await Promise.allSettled([...this.inFlight].map((upload) => upload.abort()));
    this.client.destroy();
  }

  async put(key: string, body: Readable): Promise<StoredObject> {
    assertStorageKey(key);
    let size = 0;
    const counted = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        size += chunk.length;
        done(null, chunk);
      },
    });
    const upload = new Upload({
      client: this.client,
      params: { Bucket: this.bucket, Key: PREFIX + key, Body: counted },
      partSize: PART_SIZE,
      queueSize: QUEUE_SIZE,
      leavePartsOnError: false,
    });
    this.inFlight.add(upload);
    try {
      // Both must settle: a failing source aborts the upload, a failing upload stops the source.
      await Promise.all([
        pipeline(body, counted),
        upload.done().catch((err: unknown) => {
          counted.destroy(err as Error);
          throw err;
        }),
      ]);
      return { key, size };
    } catch (err) {
      await upload.abort().catch(() => undefined);
      // A single-part upload may have completed before the source failed.
      await this.delete(key).catch(() => undefined);
      throw err;
    } finally {
      this.inFlight.delete(upload);
    }
  }

  async get(key: string, range?: ByteRange): Promise<Readable> {
    assertStorageKey(key);
    const out = await this.client.send(
      new GetObjectCommand({ Bucket: this.bucket, Key: PREFIX + key, Range: range ? `bytes=${range.start}-${range.end}` : undefined }),
    );
    if (!(out.Body instanceof Readable)) throw new Error(`S3 returned no stream for ${key}`);
    return out.Body;
  }

  async delete(key: string): Promise<void> {
    assertStorageKey(key);
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: PREFIX + key }));
  }

  async exists(key: string): Promise<boolean> {
    assertStorageKey(key);
    try {
      await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: PREFIX + key }));
      return true;
    } catch (err) {
      if ((err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode === 404) return false;
      throw err;
    }
  }

  /** Best effort: not every S3-compatible store lists multipart uploads (a lifecycle rule is the operator's backstop). */
  private async abortStaleMultipartUploads(): Promise<void> {
    try {
      const listed = await this.client.send(new ListMultipartUploadsCommand({ Bucket: this.bucket, Prefix: PREFIX }));
      const cutoff = Date.now() - STALE_MULTIPART_MS;
      for (const upload of listed.Uploads ?? []) {
        if (!upload.Key || !upload.UploadId || !upload.Initiated || upload.Initiated.getTime() > cutoff) continue;
        await this.client.send(new AbortMultipartUploadCommand({ Bucket: this.bucket, Key: upload.Key, UploadId: upload.UploadId }));
        this.logger.log(`Aborted the unfinished multipart upload of ${upload.Key} started ${upload.Initiated.toISOString()}`);
      }
    } catch (err) {
      this.logger.warn(`Could not list unfinished multipart uploads in "${this.bucket}": ${errorText(err)}`);
    }
  }
}

function errorText(err: unknown): string {
  return err instanceof Error ? `${err.name}: ${err.message}` : String(err);
}
