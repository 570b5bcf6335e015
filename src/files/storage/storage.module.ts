import { Module } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../../config/config';
import { Sha256Pool } from '../sha256-pool';
import { LocalStorageDriver } from './local-storage.driver';
import { S3StorageDriver } from './s3-storage.driver';
import { StorageDriver } from './storage-driver';

/**
 * What moves upload bytes: the storage driver chosen by STORAGE_DRIVER and
 * the SHA-256 workers. The driver is checked while the app starts (the S3
 * bucket must exist): a store that is not usable stops the start.
 */
@Module({
  providers: [
    {
      provide: StorageDriver,
      inject: [APP_CONFIG],
      useFactory: async (config: AppConfig): Promise<StorageDriver> => {
        const driver = config.storage.driver === 's3' ? new S3StorageDriver(config.storage.s3) : new LocalStorageDriver(config.dataDir);
        await driver.init();
        return driver;
      },
    },
    Sha256Pool,
  ],
  exports: [StorageDriver, Sha256Pool],
})
export class StorageModule {}
