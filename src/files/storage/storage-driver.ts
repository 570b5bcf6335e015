import type { Readable } from 'node:stream';

/** Inclusive byte range, as in `Range: bytes=start-end`. */
export interface ByteRange {
  start: number;
  end: number;
}

export interface StoredObject {
  key: string;
  size: number;
}

/**
 * Where file bytes live. Keys are made by the files service (never by a
 * client). A `put` either stores the whole stream or leaves nothing behind,
 * so a failed upload cannot leave a partial object.
 *
 * An abstract class rather than an interface so Nest can inject it by type.
 */
export abstract class StorageDriver {
  abstract readonly name: 'local' | 's3';

  /** Checks the store is usable; the service refuses to start otherwise. */
  abstract init(): Promise<void>;

  /** Streams `body` into the object `key`; on any error nothing remains under `key`. */
  abstract put(key: string, body: Readable): Promise<StoredObject>;

  /** The object's bytes (or `range` of them) as a stream; rejects if it does not exist. */
  abstract get(key: string, range?: ByteRange): Promise<Readable>;

  /** Removes the object; removing a missing one is not an error. */
  abstract delete(key: string): Promise<void>;

  abstract exists(key: string): Promise<boolean>;
}

/** Storage keys are ours (`<2 hex>/<uuid>`); anything else is a bug, refused before it reaches a path. */
export function assertStorageKey(key: string): void {
  if (!/^[0-9a-f]{2}\/[0-9a-f-]{36}$/.test(key)) throw new Error(`Invalid storage key ${JSON.stringify(key)}`);
}

/** The key of a file id: a two-character prefix keeps local directories small. */
export function storageKeyOf(fileId: string): string {
  return `${fileId.slice(0, 2)}/${fileId}`;
}
