import { DynamicModule, Module } from '@nestjs/common';
import { APP_FILTER, APP_GUARD, APP_PIPE } from '@nestjs/core';
import { ThrottlerModule } from '@nestjs/throttler';
import { LoggerModule } from 'nestjs-pino';
import { AgentsModule } from './agents/agents.module';
import { AuthModule } from './auth/auth.module';
import { BillingModule } from './billing/billing.module';
import { BearerAuthGuard } from './common/auth/bearer.guard';
import { ApiExceptionFilter } from './common/errors/api-exception.filter';
import { RequestValidationPipe } from './common/errors/validation.pipe';
import { TokenThrottlerGuard } from './common/http/throttler.guard';
import { loggerParams } from './common/logging/logging';
import { ConfigModule } from './config/config.module';
import { APP_CONFIG, AppConfig } from './config/config';
import { DatabaseModule } from './database/database.module';
import type { DatabaseOverrides } from './database/database';
import { FilesModule } from './files/files.module';
import { HealthModule } from './health/health.module';
import { MemoryModule } from './memory/memory.module';
import { McpModule } from './mcp/mcp.module';
import { MetricsModule } from './metrics/metrics.module';
import { ShutdownService } from './shutdown.service';
import { TeamsModule } from './teams/teams.module';
import { WebhooksModule } from './webhooks/webhooks.module';
import { WorkforcesModule } from './workforces/workforces.module';

/**
 * The whole application. The global pipeline (rate limit → bearer guard →
 * validation pipe → handler → exception filter) is registered here with APP_*
 * providers, so tests that import this module get exactly the production one.
 */
@Module({})
export class AppModule {
  static forRoot(config: AppConfig, overrides: DatabaseOverrides = {}): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ConfigModule.forRoot(config),
        LoggerModule.forRoot(loggerParams(config)),
        ThrottlerModule.forRoot({
          throttlers: [{ name: 'default', ttl: 60_000, limit: config.rateLimitPerMinute }],
          skipIf: () => config.rateLimitPerMinute === 0,
        }),
        DatabaseModule.forRoot(config, overrides),
        MetricsModule,
        HealthModule,
        AuthModule,
        TeamsModule,
        BillingModule,
        WebhooksModule,
        AgentsModule,
        WorkforcesModule,
        MemoryModule,
        McpModule,
        FilesModule,
      ],
      providers: [
        { provide: APP_GUARD, useClass: TokenThrottlerGuard },
        { provide: APP_GUARD, useClass: BearerAuthGuard },
        { provide: APP_PIPE, useClass: RequestValidationPipe },
        { provide: APP_FILTER, useClass: ApiExceptionFilter },
        ShutdownService,
      ],
    };
  }
}

export { APP_CONFIG };
