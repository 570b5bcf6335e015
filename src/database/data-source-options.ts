import * as path from 'node:path';
import type { DataSourceOptions } from 'typeorm';
import type { AppConfig } from '../config/config';

/** Connections the embedded server accepts; the pool is never larger (FACTS.md). */
export const EMBEDDED_MAX_CONNECTIONS = 5;

const compiled = !__filename.endsWith('.ts');
const root = path.resolve(__dirname, '..', '..');

/**
 * The one source of database options, used by the app, the CLI, the migration
 * scripts and the tests. `synchronize` is off for good: the schema comes only
 * from the SQL migrations in `migrations/`.
 */
export function dataSourceOptions(config: AppConfig, url: string, embedded: boolean): DataSourceOptions {
  return {
    type: 'postgres',
    url,
    synchronize: false,
    migrationsRun: false,
    migrationsTableName: 'migrations',
    entities: [compiled ? path.join(__dirname, '..', '**', '*.entity.js') : path.join(root, 'src', '**', '*.entity.ts')],
    migrations: [compiled ? path.join(__dirname, '..', 'migrations', '*.js') : path.join(root, 'migrations', '*.ts')],
    logging: false,
    extra: {
      max: embedded ? Math.min(config.database.poolSize, EMBEDDED_MAX_CONNECTIONS) : config.database.poolSize,
      // Fail fast instead of hanging when the database is gone or the pool is exhausted.
      connectionTimeoutMillis: config.database.connectTimeoutMs,
      idleTimeoutMillis: 30_000,
      statement_timeout: config.database.statementTimeoutMs || undefined,
      application_name: 'agent-platform-api',
    },
  };
}
