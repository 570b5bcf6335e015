import type { DataSource, Migration } from 'typeorm';

/** Arbitrary constant: the advisory lock under which instances migrate one at a time. */
const MIGRATION_LOCK_ID = 7_412_908_311;

/**
 * Runs pending migrations under a PostgreSQL advisory lock, so several
 * instances starting together migrate once; then runs `after` (first-start
 * bootstrap) under the same lock.
 */
export async function migrate(dataSource: DataSource, after?: () => Promise<void>): Promise<Migration[]> {
  const runner = dataSource.createQueryRunner();
  await runner.connect();
  try {
    await runner.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_ID]);
    try {
      const applied = await dataSource.runMigrations({ transaction: 'each' });
      if (after) await after();
      return applied;
    } finally {
      await runner.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_ID]);
    }
  } finally {
    await runner.release();
  }
}
