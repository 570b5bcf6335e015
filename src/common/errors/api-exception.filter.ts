import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import { ThrottlerException } from '@nestjs/throttler';
import type { Request, Response } from 'express';
import { STATUS_CODES } from 'node:http';
import { QueryFailedError } from 'typeorm';
import { ApiError, TooManyRequests, Unauthorized, ValidationFailed } from './errors';
import { multipartErrorResponse } from './multipart-errors';

export interface ErrorResponse {
  status: number;
  body: Record<string, unknown>;
  headers?: Record<string, string>;
}

/** PostgreSQL / pg conditions that mean "the database is not reachable right now". */
const UNAVAILABLE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ENOTFOUND', 'ETIMEDOUT', 'EPIPE', 'ENOENT', '57P01', '57P02', '57P03', '53300', '57014']);
const UNAVAILABLE_MESSAGES = [/Connection terminated/i, /timeout exceeded when trying to connect/i, /Client has encountered a connection error/i, /connect ECONNREFUSED/i, /Connection ended unexpectedly/i, /Client was closed/i, /Cannot use a pool after calling end/i, /statement timeout/i];

export function isDatabaseUnavailable(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; current && depth < 4; depth++) {
    const e = current as { code?: unknown; message?: unknown; driverError?: unknown; cause?: unknown };
    if (typeof e.code === 'string' && UNAVAILABLE_CODES.has(e.code)) return true;
    if (typeof e.message === 'string' && UNAVAILABLE_MESSAGES.some((re) => re.test(e.message as string))) return true;
    current = e.driverError ?? e.cause;
  }
  return false;
}

/** Maps anything thrown to CONTRACT §1's status and body. Unknown errors become a bare 500. */
export function toErrorResponse(exception: unknown): ErrorResponse | undefined {
  if (exception instanceof ValidationFailed) return { status: 422, body: { detail: exception.items } };
  if (exception instanceof Unauthorized) {
    return { status: 401, body: { detail: exception.message }, headers: { 'WWW-Authenticate': 'Bearer' } };
  }
  if (exception instanceof TooManyRequests) {
    return { status: 429, body: { detail: exception.message }, headers: { 'Retry-After': String(exception.retryAfterSeconds) } };
  }
  if (exception instanceof ApiError) return { status: exception.status, body: { detail: exception.message, ...exception.extra } };
  if (exception instanceof ThrottlerException) return { status: 429, body: { detail: 'Too many requests' } };
  const multipart = multipartErrorResponse(exception);
  if (multipart) return multipart;
  if (exception instanceof HttpException) {
    const status = exception.getStatus();
    if (status === 404) return { status, body: { detail: 'Not Found' } };
    // Readiness (terminus) throws its own 503 while the database is down: same body as every other 503.
    if (status === 503) return { status, body: { detail: 'Service unavailable' } };
    const response = exception.getResponse();
    const message = typeof response === 'string' ? response : (response as { message?: unknown }).message;
    const detail = status < 500 && typeof message === 'string' ? message : (STATUS_CODES[status] ?? 'Error');
    return { status, body: { detail } };
  }
  if (exception instanceof QueryFailedError) {
    const code = (exception.driverError as { code?: string } | undefined)?.code;
    if (code === '23505') return { status: 409, body: { detail: 'Conflict: the resource already exists' } };
  }
  if (isDatabaseUnavailable(exception)) return { status: 503, body: { detail: 'Service unavailable' } };
  return undefined;
}

@Catch()
export class ApiExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger(ApiExceptionFilter.name);

  catch(exception: unknown, host: ArgumentsHost): void {
    const ctx = host.switchToHttp();
    const res = ctx.getResponse<Response>();
    const req = ctx.getRequest<Request>();
    let mapped = toErrorResponse(exception);
    if (!mapped && req.destroyed && !req.complete) {
      // The client went away mid-request (e.g. an upload cut off): nobody to answer, nothing to alarm about.
      this.logger.debug({ method: req.method, url: req.originalUrl?.split('?')[0] }, 'Client closed the request before it completed');
      return;
    }
    if (!mapped || mapped.status >= 500) {
      // Logged with the request id (pino-http binds it); never sent to the client.
      this.logger.error({ err: exception, method: req.method, url: req.originalUrl?.split('?')[0] }, 'Request failed');
    }
    mapped ??= { status: 500, body: { detail: 'Internal Server Error' } };
    if (res.headersSent) {
      res.destroy();
      return;
    }
    for (const [name, value] of Object.entries(mapped.headers ?? {})) res.setHeader(name, value);
    res.status(mapped.status).json(mapped.body);
  }
}
