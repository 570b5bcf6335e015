import type { NestExpressApplication } from '@nestjs/platform-express';
import { createApp } from '../../src/app';
import { Env, loadConfig } from '../../src/config/config';
import { ADMIN_TOKEN, TestApp } from './test-app';

/**
 * A second application instance on the first one's PostgreSQL database, as two
 * service instances behind a load balancer would be. Only PostgreSQL: the
 * embedded database belongs to one process. Closing it leaves the database
 * (the first app drops it).
 */
export async function createSecondInstance(
  first: TestApp,
  env: Env & Record<string, string | undefined> = {},
): Promise<NestExpressApplication> {
  if (first.backend !== 'postgres' || !first.config.database.url) throw new Error('A second instance needs PostgreSQL (TEST_DATABASE_URL)');
  const config = loadConfig({
    LOG_LEVEL: 'silent',
    RATE_LIMIT_PER_MINUTE: '0',
    BOOTSTRAP_ADMIN_TOKEN: ADMIN_TOKEN,
    DATA_DIR: first.dataDir,
    ...env,
    DATABASE_URL: first.config.database.url,
  });
  const app = await createApp(config);
  await app.init();
  return app;
}
