import { Module } from '@nestjs/common';
import { MulterModule } from '@nestjs/platform-express';
import { APP_CONFIG, AppConfig } from '../config/config';
import { FilePreviewService } from './file-preview.service';
import { FilesController } from './files.controller';
import { FilesService } from './files.service';
import { Sha256Pool } from './sha256-pool';
import { StorageDriver } from './storage/storage-driver';
import { StorageModule } from './storage/storage.module';
import { StreamingStorageEngine } from './upload-storage.engine';
import { UploadController } from './upload.controller';

/** Text parts an upload may carry: four known ones plus empty `file`/`files` values a browser may send. */
const MAX_TEXT_PARTS = 32;
const STREAM_BUFFER_BYTES = 1024 * 1024;

/** Share uploads and previews: the upload controller and the files controller side by side (STYLE.md). */
@Module({
  imports: [
    StorageModule,
    MulterModule.registerAsync({
      imports: [StorageModule],
      inject: [APP_CONFIG, StorageDriver, Sha256Pool],
      useFactory: (config: AppConfig, storage: StorageDriver, hashing: Sha256Pool) => ({
        storage: new StreamingStorageEngine(storage, hashing, config.uploads.maxFileBytes),
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
        // Buffers of 1 MiB (not 16 KiB) between socket, parser and storage: fewer pauses, parsing overlaps writing.
        highWaterMark: STREAM_BUFFER_BYTES,
        fileHwm: STREAM_BUFFER_BYTES,
      }),
    }),
  ],
  controllers: [UploadController, FilesController],
  providers: [FilesService, FilePreviewService],
})
export class FilesModule {}
