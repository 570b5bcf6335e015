import { DynamicModule, Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import type { AppConfig } from '../config/config';
import { ConfigModule } from '../config/config.module';
import { DatabaseModule } from '../database/database.module';
import { MetricsModule } from '../metrics/metrics.module';
import { TeamsModule } from '../teams/teams.module';
import { WebhooksModule } from '../webhooks/webhooks.module';

/** What the CLI needs: configuration, the database (migrated) and the services its commands call. No HTTP. */
@Module({})
export class CliModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: CliModule,
      imports: [ConfigModule.forRoot(config), DatabaseModule.forRoot(config), MetricsModule, TeamsModule, AuthModule, WebhooksModule],
    };
  }
}
