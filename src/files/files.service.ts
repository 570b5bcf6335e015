import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { AuthUser } from '../common/auth/auth-user';
import { NotFound, ValidationFailed } from '../common/errors/errors';
import { UsageService } from '../teams/usage.service';
import { StoredFile } from './entities/file.entity';
import { StorageDriver } from './storage/storage-driver';
import { cleanFileName, parseUploadForm, UploadFields } from './upload-form';
import type { UploadedPart } from './upload-storage.engine';

export interface UploadResult extends UploadFields {
  files: StoredFile[];
}

export interface FileFilter {
  taskId?: string;
  folder?: string;
}

@Injectable()
export class FilesService {
  private readonly logger = new Logger(FilesService.name);

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly usage: UsageService,
    private readonly storage: StorageDriver,
  ) {}

  /**
   * Completes an upload whose parts multer has streamed into storage: checks
   * the form, then charges the team and records every file in ONE transaction.
   * All or nothing: on any failure the stored parts are deleted again.
   */
  async completeUpload(user: AuthUser, isMultipart: boolean, body: Record<string, unknown>, parts: UploadedPart[]): Promise<UploadResult> {
    try {
      if (!isMultipart) {
        throw ValidationFailed.one(['header', 'content-type'], 'Value error, expected multipart/form-data', 'value_error');
      }
      const fields = parseUploadForm(
        body,
        parts.map((p) => p.fieldname),
      );
      const totalBytes = parts.reduce((sum, p) => sum + p.size, 0);
      const files = await this.dataSource.transaction(async (manager) => {
        await this.usage.consume(user.teamId, 'storage_bytes', totalBytes, manager);
        await this.usage.consume(user.teamId, 'files_uploaded', parts.length, manager);
        const rows = parts.map((p) =>
          manager.create(StoredFile, {
            id: p.fileId,
            userId: user.id,
            teamId: user.teamId,
            name: cleanFileName(p.originalname),
            size: p.size,
            contentType: p.contentType,
            sha256: p.sha256,
            folder: fields.folder,
            taskId: fields.taskId,
            taskType: fields.taskType,
            message: fields.message,
            storageKey: p.storageKey,
          }),
        );
        // insert() reads created_at back (RETURNING) into the entities.
        await manager.insert(StoredFile, rows);
        return rows;
      });
      return { ...fields, files };
    } catch (err) {
      await this.discard(parts.map((p) => p.storageKey));
      throw err;
    }
  }

  async list(userId: number, filter: FileFilter, limit: number, offset: number): Promise<[StoredFile[], number]> {
    const query = this.dataSource
      .getRepository(StoredFile)
      .createQueryBuilder('f')
      .where('f.user_id = :userId', { userId })
      .orderBy('f.created_at', 'DESC')
      .addOrderBy('f.name', 'ASC')
      .addOrderBy('f.id', 'ASC')
      .take(limit)
      .skip(offset);
    if (filter.taskId !== undefined) query.andWhere('f.task_id = :taskId', { taskId: filter.taskId });
    if (filter.folder !== undefined) query.andWhere('f.folder = :folder', { folder: filter.folder.replace(/\/+$/, '') });
    return query.getManyAndCount();
  }

  /** The caller's file; another user's is simply not found. */
  async getOwned(userId: number, id: string): Promise<StoredFile> {
    const file = await this.dataSource.getRepository(StoredFile).findOneBy({ id, userId });
    if (!file) throw new NotFound('File');
    return file;
  }

  /**
   * Deletes the row and gives the bytes back to the team charged for them, in
   * one transaction; the stored object goes after the commit, so a failed
   * commit never loses content (a failed object delete only leaves an orphan, logged).
   */
  async delete(userId: number, id: string): Promise<void> {
    const file = await this.dataSource.transaction(async (manager) => {
      const found = await manager.findOne(StoredFile, { where: { id, userId }, lock: { mode: 'pessimistic_write' } });
      if (!found) throw new NotFound('File');
      await manager.delete(StoredFile, { id });
      await this.usage.release(found.teamId, 'storage_bytes', found.size, manager);
      return found;
    });
    await this.discard([file.storageKey]);
  }

  private async discard(keys: string[]): Promise<void> {
    const results = await Promise.allSettled(keys.map((key) => this.storage.delete(key)));
    results.forEach((result, i) => {
      if (result.status === 'rejected') this.logger.warn(`Could not delete stored object ${keys[i]}: ${String(result.reason)}`);
    });
  }
}
