import { fileTypeFromBuffer } from 'file-type';
import * as path from 'node:path';

/** How many leading bytes of each upload are kept for detection (file-type's own sample size). */
export const DETECTION_BYTES = 4100;

export const UNKNOWN_CONTENT_TYPE = 'application/octet-stream';

/** Fallback by extension, for formats without magic bytes (text, HTML, SVG, CSV, ...). */
const BY_EXTENSION: Record<string, string> = {
  txt: 'text/plain',
  text: 'text/plain',
  log: 'text/plain',
  md: 'text/markdown',
  markdown: 'text/markdown',
  csv: 'text/csv',
  tsv: 'text/tab-separated-values',
  html: 'text/html',
  htm: 'text/html',
  css: 'text/css',
  js: 'text/javascript',
  mjs: 'text/javascript',
  json: 'application/json',
  xml: 'application/xml',
  yaml: 'application/yaml',
  yml: 'application/yaml',
  svg: 'image/svg+xml',
  ics: 'text/calendar',
  py: 'text/x-python',
  sh: 'text/x-shellscript',
  sql: 'application/sql',
  pdf: 'application/pdf',
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  avif: 'image/avif',
  bmp: 'image/bmp',
  ico: 'image/vnd.microsoft.icon',
  tif: 'image/tiff',
  tiff: 'image/tiff',
  mp3: 'audio/mpeg',
  wav: 'audio/wav',
  ogg: 'audio/ogg',
  mp4: 'video/mp4',
  webm: 'video/webm',
  mov: 'video/quicktime',
  zip: 'application/zip',
  gz: 'application/gzip',
  tar: 'application/x-tar',
  doc: 'application/msword',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  xls: 'application/vnd.ms-excel',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  ppt: 'application/vnd.ms-powerpoint',
  pptx: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  rtf: 'application/rtf',
};

/**
 * The content type of an upload: from its leading bytes (magic numbers) when
 * they identify it, else from the name's extension, else unknown.
 */
export async function detectContentType(head: Buffer, name: string): Promise<string> {
  const byExtension = BY_EXTENSION[path.extname(name).slice(1).toLowerCase()];
  const detected = head.length > 0 ? await fileTypeFromBuffer(head) : undefined;
  // Generic XML magic says nothing more than the extension of an XML dialect (SVG).
  if (detected?.mime === 'application/xml' && byExtension?.endsWith('+xml')) return byExtension;
  return detected?.mime ?? byExtension ?? UNKNOWN_CONTENT_TYPE;
}

/** Text is always served as UTF-8, so a browser never guesses another charset. */
export function withCharset(contentType: string): string {
  const textual =
    contentType.startsWith('text/') ||
    contentType.endsWith('+xml') ||
    contentType.endsWith('+json') ||
    ['application/json', 'application/xml', 'application/yaml', 'application/sql'].includes(contentType);
  return textual ? `${contentType}; charset=utf-8` : contentType;
}
