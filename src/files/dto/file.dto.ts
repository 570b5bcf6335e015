import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, MaxLength } from 'class-validator';
import { PaginationQuery } from '../../common/http/pagination';
import type { StoredFile } from '../entities/file.entity';

export class FileView {
  @ApiProperty({ format: 'uuid', example: '3f0b5c9e-8a3b-4c1e-9a57-2f6f9d1b7e21' }) id: string;
  @ApiProperty({ example: 'q3.pdf', description: "The client's file name (never used for storage)" }) name: string;
  @ApiProperty({ example: 12345, description: 'Bytes' }) size: number;
  @ApiProperty({ example: 'application/pdf', description: 'Detected from the content (magic bytes), else from the extension' })
  content_type: string;
  @ApiProperty({ example: '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08', description: 'SHA-256 of the content, hex' })
  sha256: string;
  @ApiProperty({ example: 'reports', nullable: true, type: String }) folder: string | null;
  @ApiProperty({ example: 't-1', nullable: true, type: String }) task_id: string | null;
  @ApiProperty({ example: 'chat', nullable: true, type: String }) task_type: string | null;
  @ApiProperty({ example: '/api/files/preview/3f0b5c9e-8a3b-4c1e-9a57-2f6f9d1b7e21' }) preview_url: string;
  @ApiProperty({ example: '2026-11-21T10:00:00.000Z' }) created_at: string;

  static of(f: StoredFile): FileView {
    return {
      id: f.id,
      name: f.name,
      size: f.size,
      content_type: f.contentType,
      sha256: f.sha256,
      folder: f.folder,
      task_id: f.taskId,
      task_type: f.taskType,
      preview_url: `/api/files/preview/${f.id}`,
      created_at: f.createdAt.toISOString(),
    };
  }
}

export class UploadResultView {
  @ApiProperty({ example: '' }) message: string;
  @ApiProperty({ example: 't-1', nullable: true, type: String }) task_id: string | null;
  @ApiProperty({ example: 'chat', nullable: true, type: String }) task_type: string | null;
  @ApiProperty({ example: 'reports', nullable: true, type: String }) folder: string | null;
  @ApiProperty({ type: [FileView] }) files: FileView[];
}

/** Documentation of the multipart body; the form itself is checked by parseUploadForm (422 `loc: ["form", ...]`). */
export const UPLOAD_FORM_SCHEMA = {
  type: 'object',
  required: ['file'],
  description:
    'At least one file part, under `file`, `files`, `file.<n>` or `files.<n>.items` (n = 0, 1, ...; repeat a name for several ' +
    'files). Other part names are rejected (422 `extra_forbidden`). A text value under a file part name is ignored when ' +
    'empty and rejected when not (422 `value_error`).',
  properties: {
    task_type: { type: 'string', maxLength: 64, example: 'chat' },
    message: { type: 'string', default: '', example: 'Q3 numbers' },
    task_id: { type: 'string', maxLength: 128, example: 't-1' },
    folder: {
      type: 'string',
      maxLength: 255,
      example: 'reports/2026',
      description: 'A relative path inside your share: no leading "/", no ".." segment, no backslash, no control characters',
    },
    file: { type: 'string', format: 'binary', description: 'A file part (binary content with a file name)' },
    files: { type: 'array', items: { type: 'string', format: 'binary' }, description: 'Several file parts under one name' },
    'file.0': { type: 'string', format: 'binary', description: 'Indexed file part (`file.<n>`)' },
    'files.0.items': { type: 'string', format: 'binary', description: 'Indexed file part (`files.<n>.items`, n 0-based)' },
  },
};

export class ListFilesQuery extends PaginationQuery {
  @ApiPropertyOptional({ example: 't-1', maxLength: 128, description: 'Only files uploaded with this task_id' })
  @IsOptional()
  @IsString()
  @MaxLength(128)
  task_id?: string;

  @ApiPropertyOptional({ example: 'reports', maxLength: 255, description: 'Only files in exactly this folder' })
  @IsOptional()
  @IsString()
  @MaxLength(255)
  folder?: string;
}
