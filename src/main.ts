import 'reflect-metadata';
import type { AddressInfo } from 'node:net';
import { config as loadDotenv } from 'dotenv';
import { Logger } from 'nestjs-pino';
import { createApp } from './app';
import { ConfigError, loadConfig } from './config/config';

async function main(): Promise<void> {
  loadDotenv({ quiet: true });
  const config = loadConfig();
  const app = await createApp(config);
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    app.get(Logger).log(`${signal} received: shutting down`);
    app
      .close()
      .then(() => process.exit(0))
      .catch((err: unknown) => {
        process.stderr.write(`Shutdown failed: ${String(err)}\n`);
        process.exit(1);
      });
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
  await app.listen(config.port, config.host);
  // The bound port, not the configured one: PORT=0 picks a free port (the tests use that).
  const { port } = app.getHttpServer().address() as AddressInfo;
  app.get(Logger).log(`Listening on http://${config.host}:${port} (docs at /docs)`);
}


main().catch((err: unknown) => {
  if (err instanceof ConfigError) {
    process.stderr.write(`${err.message}\n`);
  } else {
    process.stderr.write(`Could not start: ${err instanceof Error ? err.message : String(err)}\n`);
  }
  process.exit(1);
});
