import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Params } from 'nestjs-pino';
import type { AppConfig } from '../../config/config';

const REQUEST_ID = /^[A-Za-z0-9._-]{1,128}$/;

/** Reuses a well-formed incoming X-Request-Id, else makes one; sends it back on the response. */
export function requestId(req: IncomingMessage, res: ServerResponse): string {
  const incoming = req.headers['x-request-id'];
  const id = typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID();
  res.setHeader('X-Request-Id', id);
  return id;
}

/**
 * Structured JSON logs (pino) with the request id on every line. Credentials
 * never reach a log: headers are reduced to an allow-list, query strings are
 * cut, bodies are never logged.
 */
export function loggerParams(config: AppConfig): Params {
  return {
    pinoHttp: {
      level: config.logLevel,
      genReqId: requestId,
      customAttributeKeys: { reqId: 'request_id' },
      autoLogging: { ignore: (req) => req.url === '/api/health' || req.url === '/metrics' },
      serializers: {
        req: (req: { id: unknown; method: string; url: string; headers: Record<string, unknown>; remoteAddress?: string }) => ({
          id: req.id,
          method: req.method,
          path: req.url?.split('?')[0],
          user_agent: req.headers?.['user-agent'],
          remote_address: req.remoteAddress,
        }),
        res: (res: { statusCode: number }) => ({ status: res.statusCode }),
      },
      redact: {
        paths: ['req.headers.authorization', 'req.headers["payment-signature"]', 'req.headers["stripe-signature"]', 'req.headers.cookie', '*.token', '*.secret', '*.password'],
        censor: '[redacted]',
      },
    },
  };
}
