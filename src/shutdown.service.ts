import { BeforeApplicationShutdown, Inject, Injectable, Logger } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { Server } from 'node:http';
import { APP_CONFIG, AppConfig } from './config/config';

/**
 * Graceful stop: Nest closes the database in its shutdown hooks, which run
 * before it closes the HTTP server. So the server is closed here, first: stop
 * accepting, let requests in flight finish (up to SHUTDOWN_TIMEOUT_MS), then
 * cut whatever is left.
 */
@Injectable()
export class ShutdownService implements BeforeApplicationShutdown {
  private readonly logger = new Logger(ShutdownService.name);

  constructor(
    private readonly adapterHost: HttpAdapterHost,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async beforeApplicationShutdown(): Promise<void> {
    const server = this.adapterHost.httpAdapter?.getHttpServer() as Server | undefined;
    if (!server?.listening) return;
    this.logger.log('Stopping: no new connections; finishing requests in flight');
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeIdleConnections();
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), this.config.shutdownTimeoutMs);
    });
    // Keep-alive sockets that go idle after their last response are closed as they free up.
    const sweeper = setInterval(() => server.closeIdleConnections(), 100);
    try {
      if ((await Promise.race([closed, timeout])) === 'timeout') {
        this.logger.warn(`Requests still in flight after ${this.config.shutdownTimeoutMs} ms: closing their connections`);
        server.closeAllConnections();
        await closed;
      }
    } finally {
      clearInterval(sweeper);
      clearTimeout(timer);
    }
  }
}
