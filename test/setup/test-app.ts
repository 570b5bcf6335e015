import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { NestExpressApplication } from '@nestjs/platform-express';
import type { Server } from 'node:http';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { createApp } from '../../src/app';
import { AppConfig, Env, loadConfig } from '../../src/config/config';
import { EmbeddedPostgres } from '../../src/database/embedded-postgres';
import { EMBEDDED_MAX_CONNECTIONS } from '../../src/database/data-source-options';
import { cloneTemplate, pgliteTemplateFile, testDatabaseUrl } from './databases';
import { TcpProxy } from './tcp-proxy';

export const ADMIN_TOKEN = 'apt_test-admin-token-0123456789abcdefghijklmnop';

export interface TestUser {
  id: number;
  teamId: number;
  email: string;
  role: 'admin' | 'member';
  token: string;
  /** `Authorization` header value. */
  auth: string;
}

export interface AuthorizedRequests {
  get(path: string): request.Test;
  post(path: string, body?: object): request.Test;
  patch(path: string, body: object): request.Test;
  put(path: string, body: object): request.Test;
  delete(path: string): request.Test;
}

export interface TestApp {
  app: NestExpressApplication;
  http: Server;
  config: AppConfig;
  dataSource: DataSource;
  backend: 'postgres' | 'pglite';
  /** Folder for this app's files (DATA_DIR). */
  dataDir: string;
  /** With `{ proxy: true }`: the TCP proxy between the app and its database (cut() / restore()). */
  proxy?: TcpProxy;
  admin: TestUser;
  /** Requests as `user` (its Authorization header set). */
  as(user: TestUser): AuthorizedRequests;
  /** A new user in a new team (or in `teamId`'s), made through the admin API. */
  createUser(options?: { role?: 'admin' | 'member'; teamId?: number; email?: string }): Promise<TestUser>;
  close(): Promise<void>;
}

let counter = 0;

/**
 * The real application (AppModule, its global guard, pipe, filter and
 * middleware) on a database of its own: an in-memory PGlite loaded from the
 * migrated template by default, a clone of the PostgreSQL template when
 * TEST_DATABASE_URL is set.
 */
export async function createTestApp(
  env: Env & Record<string, string | undefined> = {},
  options: { proxy?: boolean } = {},
): Promise<TestApp> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'apt-test-'));
  const pg = testDatabaseUrl();
  const clone = pg ? await cloneTemplate(pg) : undefined;
  const template = clone ? undefined : new Blob([fs.readFileSync(pgliteTemplateFile())]);
  // Behind a proxy the app sees a plain PostgreSQL URL; on the embedded backend the
  // test owns the PGlite server that the proxy forwards to.
  let embedded: EmbeddedPostgres | undefined;
  let proxy: TcpProxy | undefined;
  let databaseUrl = clone?.url;
  if (options.proxy) {
    let target: { host?: string; port?: number; path?: string };
    if (clone) {
      const u = new URL(clone.url);
      target = { host: u.hostname, port: Number(u.port || 5432) };
    } else {
      embedded = await EmbeddedPostgres.start({ loadDataDir: template, maxConnections: EMBEDDED_MAX_CONNECTIONS });
      target = { path: path.join(embedded.socketHost, '.s.PGSQL.5432') };
    }
    proxy = await new TcpProxy(target as never).start();
    const u = new URL(clone?.url ?? 'postgres://postgres@127.0.0.1/postgres');
    u.hostname = '127.0.0.1';
    u.port = String(proxy.port);
    databaseUrl = u.toString();
  }
  const config = loadConfig({
    LOG_LEVEL: 'silent',
    RATE_LIMIT_PER_MINUTE: '0',
    BOOTSTRAP_ADMIN_TOKEN: ADMIN_TOKEN,
    DATA_DIR: dataDir,
    ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
    // The embedded server behind a proxy accepts at most this many connections.
    ...(embedded ? { DATABASE_POOL_SIZE: String(EMBEDDED_MAX_CONNECTIONS) } : {}),
    ...env,
  });
  let app: NestExpressApplication;
  try {
    app = await createApp(config, { embeddedInMemory: true, embeddedTemplate: template });
    await app.init();
  } catch (err) {
    await proxy?.stop();
    await embedded?.stop();
    await clone?.drop();
    throw err;
  }
  const http = app.getHttpServer() as Server;
  const admin: TestUser = { id: 1, teamId: 1, email: 'admin@localhost', role: 'admin', token: ADMIN_TOKEN, auth: `Bearer ${ADMIN_TOKEN}` };
  return {
    app,
    http,
    config,
    dataSource: app.get(DataSource),
    backend: clone ? 'postgres' : 'pglite',
    dataDir,
    proxy,
    admin,
    as: (user) => ({
      get: (path) => request(http).get(path).set('Authorization', user.auth),
      post: (path, body) => request(http).post(path).set('Authorization', user.auth).send(body),
      patch: (path, body) => request(http).patch(path).set('Authorization', user.auth).send(body),
      put: (path, body) => request(http).put(path).set('Authorization', user.auth).send(body),
      delete: (path) => request(http).delete(path).set('Authorization', user.auth),
    }),
    async createUser(options = {}) {
      const email = options.email ?? `user${++counter}-${process.pid}@example.com`;
      const res = await request(http)
        .post('/api/admin/users')
        .set('Authorization', admin.auth)
        .send({ email, role: options.role, team_id: options.teamId });
      if (res.status !== 201) throw new Error(`createUser: ${res.status} ${JSON.stringify(res.body)}`);
      const body = res.body as { user_id: number; team_id: number; email: string; role: 'admin' | 'member'; token: string };
      return { id: body.user_id, teamId: body.team_id, email: body.email, role: body.role, token: body.token, auth: `Bearer ${body.token}` };
    },
    async close() {
      await proxy?.restore();
      await app.close();
      await proxy?.stop();
      await embedded?.stop();
      await clone?.drop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
