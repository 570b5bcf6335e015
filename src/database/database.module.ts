import { DynamicModule, Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import type { AppConfig } from '../config/config';
import { UsersService } from '../auth/users.service';
import { TokensService } from '../auth/tokens.service';
import { DatabaseBackend, DatabaseOverrides, openDatabase } from './database';
import { DatabaseInUseError } from './embedded-postgres';
import { migrate } from './migrate';

export const DATABASE_BACKEND = Symbol('DATABASE_BACKEND');

/**
 * Opens PostgreSQL (DATABASE_URL) or the embedded database, applies pending
 * migrations under an advisory lock and, on an empty database, creates the
 * bootstrap admin, before any request is served.
 */
@Global()
@Module({})
export class DatabaseModule {
  static forRoot(config: AppConfig, overrides: DatabaseOverrides = {}): DynamicModule {
    const backend: DatabaseBackend = config.database.url ? 'postgres' : 'pglite';
    return {
      module: DatabaseModule,
      imports: [
        TypeOrmModule.forRootAsync({
          useFactory: () => ({ retryAttempts: 5, retryDelay: 2000, toRetry: (err: unknown) => !(err instanceof DatabaseInUseError) }),
          dataSourceFactory: async (): Promise<DataSource> => {
            const { dataSource } = await openDatabase(config, overrides);
            try {
              await migrate(dataSource, () => new UsersService(dataSource, new TokensService(dataSource)).bootstrapAdmin(config));
            } catch (err) {
              await dataSource.destroy();
              throw err;
            }
            return dataSource;
          },
        }),
      ],
      providers: [{ provide: DATABASE_BACKEND, useValue: backend }],
      exports: [DATABASE_BACKEND],
    };
  }
}
