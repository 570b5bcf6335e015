import { DataSource } from 'typeorm';
import type { AppConfig } from '../config/config';
import { dataSourceOptions, EMBEDDED_MAX_CONNECTIONS } from './data-source-options';
import { EmbeddedPostgres } from './embedded-postgres';

export type DatabaseBackend = 'postgres' | 'pglite';

/** How tests replace the on-disk embedded database with an in-memory copy of a migrated template. */
export interface DatabaseOverrides {
  embeddedInMemory?: boolean;
  embeddedTemplate?: Blob;
}

export interface OpenedDatabase {
  dataSource: DataSource;
  backend: DatabaseBackend;
}

/**
 * Opens the configured database: PostgreSQL at DATABASE_URL, or else the
 * embedded one under DATA_DIR (started here and stopped when the DataSource
 * is destroyed, after its pool, so nothing talks to a stopped server).
 */
export async function openDatabase(config: AppConfig, overrides: DatabaseOverrides = {}): Promise<OpenedDatabase> {
  if (config.database.url) {
    const dataSource = new DataSource(dataSourceOptions(config, config.database.url, false));
    await dataSource.initialize();
    return { dataSource, backend: 'postgres' };
  }
  const embedded = await EmbeddedPostgres.start({
    dataDir: overrides.embeddedInMemory ? undefined : config.dataDir,
    loadDataDir: overrides.embeddedTemplate,
    maxConnections: EMBEDDED_MAX_CONNECTIONS,
  });
  const dataSource = new DataSource(dataSourceOptions(config, embedded.url, true));
  try {
    await dataSource.initialize();
  } catch (err) {
    await embedded.stop();
    throw err;
  }
  const destroy = dataSource.destroy.bind(dataSource);
  dataSource.destroy = async () => {
    try {
      await destroy();
    } finally {
      await embedded.stop();
    }
  };
  return { dataSource, backend: 'pglite' };
}
