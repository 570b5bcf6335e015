import { Injectable, Logger } from '@nestjs/common';
import type { Request, Response } from 'express';
import { pipeline } from 'node:stream/promises';
import { withCharset } from './content-type';
import type { StoredFile } from './entities/file.entity';
import { ByteRange, StorageDriver } from './storage/storage-driver';

/**
 * Served with every preview: an uploaded HTML or SVG file renders in a
 * sandbox (opaque origin, no script) and loads nothing but inline styles and
 * images, so it can never act in the service's origin. Replaces helmet's CSP.
 */
export const PREVIEW_CSP = "sandbox; default-src 'none'; img-src 'self' data:; style-src 'unsafe-inline'";

/**
 * The HTTP side of a preview (CONTRACT §6): headers, conditional requests
 * (ETag → 304), one byte range (206 / 416), HEAD, and the bytes streamed from
 * storage to the socket.
 */
@Injectable()
export class FilePreviewService {
  private readonly logger = new Logger(FilePreviewService.name);

  constructor(private readonly storage: StorageDriver) {}

  async send(file: StoredFile, req: Request, res: Response): Promise<void> {
    const etag = `"${file.sha256}"`;
    res.setHeader('Content-Type', withCharset(file.contentType));
    res.setHeader('Content-Disposition', inlineDisposition(file.name));
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Content-Security-Policy', PREVIEW_CSP);
    res.setHeader('ETag', etag);
    res.setHeader('Accept-Ranges', 'bytes');
    // Cached by the browser only, and revalidated (cheaply, by ETag) on every use.
    res.setHeader('Cache-Control', 'private, no-cache');

    if (matchesAny(req.headers['if-none-match'], etag)) {
      res.status(304).end();
      return;
    }

    const range = requestedRange(req, file.size, etag);
    if (range === 'unsatisfiable') {
      res.setHeader('Content-Range', `bytes */${file.size}`);
      res.removeHeader('Content-Disposition');
      // The error body is JSON, not the file's type.
      res.status(416).type('application/json').json({ detail: 'Range not satisfiable' });
      return;
    }
    if (range) res.setHeader('Content-Range', `bytes ${range.start}-${range.end}/${file.size}`);
    res.setHeader('Content-Length', String(range ? range.end - range.start + 1 : file.size));
    res.status(range ? 206 : 200);
    if (req.method === 'HEAD') {
      res.end();
      return;
    }

    // Opened before the first byte is sent, so a storage failure is still a clean 500.
    const body = await this.storage.get(file.storageKey, range);
    try {
      await pipeline(body, res);
    } catch (err) {
      // pipeline has closed the storage stream; a client that went away is routine.
      if (res.destroyed && !res.writableFinished) this.logger.debug(`Preview of ${file.id} ended early: the client went away`);
      else this.logger.warn(`Preview of ${file.id} failed while streaming: ${String(err)}`);
    }
  }
}

/**
 * One byte range to serve, `undefined` for the whole file (no Range, a
 * malformed one, several ranges, or an If-Range that no longer matches:
 * RFC 9110 lets a server answer those with the full content), or
 * 'unsatisfiable' (416).
 */
function requestedRange(req: Request, size: number, etag: string): ByteRange | 'unsatisfiable' | undefined {
  if (!req.headers.range) return undefined;
  const ifRange = req.headers['if-range'];
  if (ifRange !== undefined && ifRange !== etag) return undefined;
  const ranges = req.range(size, { combine: true });
  if (ranges === -1) return 'unsatisfiable';
  if (ranges === undefined || ranges === -2 || ranges.type !== 'bytes' || ranges.length !== 1) return undefined;
  return { start: ranges[0].start, end: ranges[0].end };
}

/** If-None-Match: a list of (possibly weak) entity tags, or `*`. */
function matchesAny(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  return header.split(',').some((tag) => {
    const t = tag.trim();
    return t === '*' || t.replace(/^W\//, '') === etag;
  });
}

/**
 * `inline` with an ASCII fallback name and the exact name in RFC 5987/6266
 * `filename*`. The fallback drops accents, replaces other non-ASCII
 * characters, quotes and backslashes, so the quoted string is always valid.
 */
export function inlineDisposition(name: string): string {
  const ascii = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^\x20-\x7e]|["\\%]/g, '_');
  const encoded = encodeURIComponent(name).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `inline; filename="${ascii}"; filename*=UTF-8''${encoded}`;
}
