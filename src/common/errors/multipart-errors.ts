import { HttpException } from '@nestjs/common';
import type { ErrorResponse } from './api-exception.filter';

/** multer's limit codes that mean "this upload is too big" (413); its other codes are bad input (422). */
const TOO_LARGE: Record<string, string> = {
  LIMIT_FILE_SIZE: 'File too large (MAX_UPLOAD_FILE_BYTES)',
  LIMIT_FILE_COUNT: 'Too many files in one upload (MAX_UPLOAD_FILES)',
  LIMIT_PART_COUNT: 'Too many parts in one upload',
  LIMIT_FIELD_COUNT: 'Too many text parts in one upload',
};

/** busboy's messages for a body that is not valid multipart. */
const MALFORMED = new Set(['Multipart: Boundary not found', 'Malformed part header', 'Unexpected end of form', 'Unexpected end of file']);

/**
 * multer and busboy errors in CONTRACT §1's bodies. Nest's file interceptors
 * wrap them in a 400/413 HttpException with the original as `cause`.
 */
export function multipartErrorResponse(exception: unknown): ErrorResponse | undefined {
  const cause = exception instanceof HttpException ? exception.cause : exception;
  if (!(cause instanceof Error)) return undefined;
  const { code, field } = cause as { code?: unknown; field?: unknown };
  if (cause.name === 'MulterError' && typeof code === 'string') {
    if (Object.hasOwn(TOO_LARGE, code)) return { status: 413, body: { detail: TOO_LARGE[code] } };
    const loc = typeof field === 'string' ? ['form', field] : ['form'];
    return {
      status: 422,
      body: { detail: [{ loc, msg: cause.message, type: code === 'LIMIT_FIELD_VALUE' ? 'string_too_long' : 'value_error' }] },
    };
  }
  if (MALFORMED.has(cause.message)) {
    return { status: 422, body: { detail: [{ loc: ['form'], msg: `Malformed multipart body: ${cause.message}`, type: 'value_error' }] } };
  }
  return undefined;
}
