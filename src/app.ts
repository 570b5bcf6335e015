import type { INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import express, { NextFunction, Request, Response } from 'express';
import helmet from 'helmet';
import { Logger } from 'nestjs-pino';
import { AppModule } from './app.module';
import type { AppConfig } from './config/config';
import type { DatabaseOverrides } from './database/database';
import { ErrorBody, ValidationErrorBody } from './common/http/openapi';

export const JSON_BODY_LIMIT = '1mb';

/** The OpenAPI UI and document (SwaggerModule.setup below). */
const DOCS_PATH = /^\/docs(?:-json|\/.*)?$/;

/** Raw bodies for signature checks: the webhook's JSON is parsed after its signature is verified. */
const RAW_BODY_ROUTES = ['/api/webhooks/payment'];

/** Body parsing with errors in the contract's format (express would answer HTML). */
function bodyParsers(app: NestExpressApplication): void {
  app.use(RAW_BODY_ROUTES, express.raw({ type: () => true, limit: JSON_BODY_LIMIT }));
  app.use(express.json({ limit: JSON_BODY_LIMIT, strict: false, type: ['application/json', 'application/*+json'] }));
  app.use((err: { type?: string; status?: number; message?: string }, _req: Request, res: Response, next: NextFunction) => {
    if (!err || res.headersSent) return next(err);
    if (err.type === 'entity.parse.failed') {
      return res.status(422).json({ detail: [{ loc: ['body'], msg: 'Invalid JSON', type: 'json_invalid' }] });
    }
    if (err.type === 'entity.too.large') return res.status(413).json({ detail: `Request body larger than ${JSON_BODY_LIMIT}` });
    if (typeof err.status === 'number' && err.status >= 400 && err.status < 500) {
      return res.status(err.status === 415 ? 415 : 400).json({ detail: err.message ?? 'Bad request' });
    }
    return next(err);
  });
}

export function openApiDocument(app: INestApplication) {
  const document = SwaggerModule.createDocument(
    app,
    new DocumentBuilder()
      .setTitle('Agent Platform API')
      .setDescription(
        'Shares and file previews, MCP servers and the MCP app library, agents and workforces, memory, ' +
          'teams and billing. Every route needs `Authorization: Bearer <token>` except health, these docs and ' +
          'the payment webhook. Errors are `{"detail": "..."}`; invalid input is 422 `{"detail":[{"loc","msg","type"}]}`.',
      )
      .setVersion('1')
      .addBearerAuth({ type: 'http', scheme: 'bearer', description: 'An API token (`apt_...`)' }, 'bearer')
      .build(),
    { extraModels: [ErrorBody, ValidationErrorBody] },
  );
  return document;
}

/** Everything main.ts and the tests share: the app, its middleware and its docs (initialised). */
export async function createApp(config: AppConfig, overrides: DatabaseOverrides = {}): Promise<NestExpressApplication> {
  const app = await NestFactory.create<NestExpressApplication>(AppModule.forRoot(config, overrides), {
    bodyParser: false,
    bufferLogs: true,
  });
  app.useLogger(app.get(Logger));
  app.disable('x-powered-by');
  if (config.trustProxy) app.set('trust proxy', /^\d+$/.test(config.trustProxy) ? Number(config.trustProxy) : config.trustProxy);
  // helmet's default CSP has upgrade-insecure-requests: a browser on plain HTTP at any non-loopback
  // address (http://server:3000/docs) then fetched Swagger UI's scripts and styles over HTTPS and the
  // page stayed blank. The docs drop that one directive; everything else keeps helmet's defaults.
  const docsHelmet = helmet({ contentSecurityPolicy: { directives: { upgradeInsecureRequests: null } } });
  const apiHelmet = helmet();
  app.use((req: Request, res: Response, next: NextFunction) => (DOCS_PATH.test(req.path) ? docsHelmet : apiHelmet)(req, res, next));
  bodyParsers(app);
  app.setGlobalPrefix('api', { exclude: ['metrics'] });
  SwaggerModule.setup('docs', app, () => openApiDocument(app), {
    jsonDocumentUrl: 'docs-json',
    swaggerOptions: { persistAuthorization: true },
    customSiteTitle: 'Agent Platform API',
  });
  await app.init();
  // Nest's own not-found handler covers only /api: everything else that no route matched ends here.
  app.getHttpAdapter().getInstance().use((_req: Request, res: Response) => {
    res.status(404).json({ detail: 'Not Found' });
  });
  return app;
}
