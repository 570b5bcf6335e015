import { Module } from '@nestjs/common';
import { MulterModule } from '@nestjs/platform-express';
import { APP_CONFIG, AppConfig } from '../config/config';
import { FilePreviewService } from './file-preview.service';
import { FilesController } from './files.controller';
import { FilesService } from './files.service';
import { StorageDriver } from './storage/storage-driver';
import { StorageModule } from './storage/storage.module';
import { StreamingStorageEngine } from './upload-storage.engine';
import { UploadController } from './upload.controller';

/** Text parts an upload may carry: four known ones plus empty `file`/`files` values a browser may send. */
const MAX_TEXT_PARTS = 32;

/** Share uploads and previews: the upload controller and the files controller side by side (STYLE.md). */
@Module({
  imports: [
    StorageModule,
    MulterModule.registerAsync({
      imports: [StorageModule],
      inject: [APP_CONFIG, StorageDriver],
      useFactory: (config: AppConfig, storage: StorageDriver) => ({
        storage: new StreamingStorageEngine(storage, config.uploads.maxFileBytes),
        // The per-file size is enforced by the engine (its message names the limit); these bound the rest.
        limits: {
          files: config.uploads.maxFiles,
          fields: MAX_TEXT_PARTS,
          parts: config.uploads.maxFiles + MAX_TEXT_PARTS,
          fieldSize: 64 * 1024,
          fieldNameSize: 200,
          headerPairs: 64,
        },
        // Browsers send UTF-8 file names without `filename*`; busboy would read them as latin1.
        defParamCharset: 'utf8',
      }),
    }),
  ],
  controllers: [UploadController, FilesController],
  providers: [FilesService, FilePreviewService],
})
export class FilesModule {}
