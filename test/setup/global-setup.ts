import * as fs from 'node:fs';
import { DataSource } from 'typeorm';
import { loadConfig } from '../../src/config/config';
import { dataSourceOptions, EMBEDDED_MAX_CONNECTIONS } from '../../src/database/data-source-options';
import { EmbeddedPostgres } from '../../src/database/embedded-postgres';
import { migrate } from '../../src/database/migrate';
import { dropClones, pgliteTemplateFile, recreateDatabase, templateName, testDatabaseUrl, withDatabase } from './databases';

/**
 * Migrates one template database per run; every spec file then gets its own
 * copy: a `CREATE DATABASE ... TEMPLATE` clone on PostgreSQL, or an in-memory
 * PGlite loaded from a dump of the migrated template.
 */
export default async function globalSetup(): Promise<void> {
  const config = loadConfig({ LOG_LEVEL: 'silent' });
  const pg = testDatabaseUrl();
  if (pg) {
    await dropClones(pg);
    await recreateDatabase(pg, templateName(pg));
    const ds = new DataSource(dataSourceOptions(config, withDatabase(pg, templateName(pg)), false));
    await ds.initialize();
    await migrate(ds);
    await ds.destroy();
    return;
  }
  const embedded = await EmbeddedPostgres.start({ maxConnections: EMBEDDED_MAX_CONNECTIONS });
  const ds = new DataSource(dataSourceOptions(config, embedded.url, true));
  await ds.initialize();
  await migrate(ds);
  await ds.destroy();
  const dump = await embedded.db.dumpDataDir('gzip');
  fs.writeFileSync(pgliteTemplateFile(), Buffer.from(await dump.arrayBuffer()));
  await embedded.stop();
}
