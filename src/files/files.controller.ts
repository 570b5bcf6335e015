import { applyDecorators, Controller, Delete, Get, Head, Query, Req, Res } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProduces, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import type { AuthUser } from '../common/auth/auth-user';
import { Authenticated, CurrentUser } from '../common/auth/decorators';
import { UuidParam } from '../common/http/id-params';
import { ApiErrors, DeletedUuidBody, ErrorBody } from '../common/http/openapi';
import { setTotalCount } from '../common/http/pagination';
import { FileView, ListFilesQuery } from './dto/file.dto';
import { FilePreviewService, PREVIEW_CSP } from './file-preview.service';
import { FilesService } from './files.service';

const PREVIEW_HEADERS = {
  'Content-Type': {
    description: 'Detected type; text types with `; charset=utf-8`; unknown: application/octet-stream',
    schema: { type: 'string' },
  },
  'Content-Disposition': {
    description: '`inline; filename="<ascii>"; filename*=UTF-8\'\'<encoded>`',
    schema: { type: 'string', example: 'inline; filename="resume.pdf"; filename*=UTF-8\'\'r%C3%A9sum%C3%A9.pdf' },
  },
  'Content-Length': { schema: { type: 'integer' } },
  ETag: { description: 'The quoted SHA-256 of the content', schema: { type: 'string' } },
  'Accept-Ranges': { schema: { type: 'string', example: 'bytes' } },
  'X-Content-Type-Options': { schema: { type: 'string', example: 'nosniff' } },
  'Content-Security-Policy': { schema: { type: 'string', example: PREVIEW_CSP } },
  'Cache-Control': { schema: { type: 'string', example: 'private, no-cache' } },
};

const BINARY = { type: 'string', format: 'binary' } as const;

const PreviewDocs = (method: 'GET' | 'HEAD') =>
  applyDecorators(
    ApiOperation({
      summary: method === 'GET' ? 'Preview (download inline) one of your files' : 'Headers of a preview, without the content',
      description:
        'Owner only. Streams the content with a sandboxing Content-Security-Policy, so HTML and SVG cannot run script. ' +
        'Supports If-None-Match (304) and one byte range (`Range: bytes=a-b` → 206; unsatisfiable → 416).',
    }),
    ApiProduces('*/*'),
    ApiOkResponse({ description: 'The whole content', content: { '*/*': { schema: BINARY } }, headers: PREVIEW_HEADERS }),
    ApiResponse({
      status: 206,
      description: 'The requested byte range',
      content: { '*/*': { schema: BINARY } },
      headers: { ...PREVIEW_HEADERS, 'Content-Range': { schema: { type: 'string', example: 'bytes 0-99/12345' } } },
    }),
    ApiResponse({ status: 304, description: 'Not modified (If-None-Match matched the ETag)', headers: { ETag: PREVIEW_HEADERS.ETag } }),
    ApiResponse({
      status: 416,
      description: 'Range not satisfiable',
      type: ErrorBody,
      headers: { 'Content-Range': { schema: { type: 'string', example: 'bytes */12345' } } },
    }),
    ApiErrors(404, 422),
  );

@ApiTags('Files')
@Authenticated()
@Controller('files')
export class FilesController {
  constructor(
    private readonly files: FilesService,
    private readonly previews: FilePreviewService,
  ) {}

  @Get()
  @ApiOperation({ summary: 'List your files, newest first', description: 'Filter by `task_id` and/or `folder` (exact match).' })
  @ApiOkResponse({
    type: [FileView],
    headers: { 'X-Total-Count': { description: 'Total number of matching files', schema: { type: 'integer' } } },
  })
  @ApiErrors(422)
  async list(
    @CurrentUser() user: AuthUser,
    @Query() query: ListFilesQuery,
    @Res({ passthrough: true }) res: Response,
  ): Promise<FileView[]> {
    const [files, total] = await this.files.list(user.id, { taskId: query.task_id, folder: query.folder }, query.limit, query.offset);
    setTotalCount(res, total);
    return files.map((f) => FileView.of(f));
  }

  // HEAD is declared before GET: Express would otherwise answer HEAD with the GET route, streaming for nothing.
  @Head('preview/:file_id')
  @PreviewDocs('HEAD')
  async previewHead(
    @CurrentUser() user: AuthUser,
    @UuidParam('file_id') id: string,
    @Req() req: Request,
    @Res() res: Response,
  ): Promise<void> {
    await this.previews.send(await this.files.getOwned(user.id, id), req, res);
  }

  @Get('preview/:file_id')
  @PreviewDocs('GET')
  async preview(@CurrentUser() user: AuthUser, @UuidParam('file_id') id: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    await this.previews.send(await this.files.getOwned(user.id, id), req, res);
  }

  @Get(':file_id')
  @ApiOperation({ summary: "One of your files' metadata" })
  @ApiOkResponse({ type: FileView })
  @ApiErrors(404, 422)
  async get(@CurrentUser() user: AuthUser, @UuidParam('file_id') id: string): Promise<FileView> {
    return FileView.of(await this.files.getOwned(user.id, id));
  }

  @Delete(':file_id')
  @ApiOperation({ summary: 'Delete one of your files', description: "Its bytes leave storage and the team's storage_bytes usage." })
  @ApiOkResponse({ type: DeletedUuidBody })
  @ApiErrors(404, 422)
  async delete(@CurrentUser() user: AuthUser, @UuidParam('file_id') id: string): Promise<DeletedUuidBody> {
    await this.files.delete(user.id, id);
    return { id, deleted: true };
  }
}
