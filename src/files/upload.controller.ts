import { Controller, HttpCode, Post, Req, UseInterceptors } from '@nestjs/common';
import { AnyFilesInterceptor } from '@nestjs/platform-express';
import { ApiBody, ApiConsumes, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import type { AuthUser } from '../common/auth/auth-user';
import { Authenticated, CurrentUser } from '../common/auth/decorators';
import { ApiErrors } from '../common/http/openapi';
import { FileView, UPLOAD_FORM_SCHEMA, UploadResultView } from './dto/file.dto';
import { FilesService } from './files.service';
import type { UploadedPart } from './upload-storage.engine';

@ApiTags('Share')
@Authenticated()
@Controller('share/files')
export class UploadController {
  constructor(private readonly files: FilesService) {}

  /** multer (configured in FilesModule) has streamed every file part into storage before this runs. */
  @Post('upload')
  @HttpCode(200)
  @UseInterceptors(AnyFilesInterceptor())
  @ApiOperation({
    summary: 'Upload files into your share',
    description:
      'Streams each file to storage, computing its SHA-256 and detecting its content type. All or nothing: if any part ' +
      'fails (a limit, the team quota, a bad field, a dropped connection), no file is kept and usage is unchanged. ' +
      "Limits: MAX_UPLOAD_FILE_BYTES per file and MAX_UPLOAD_FILES per request (413), the plan's storage_bytes (402).",
  })
  @ApiConsumes('multipart/form-data')
  @ApiBody({ schema: UPLOAD_FORM_SCHEMA })
  @ApiOkResponse({ type: UploadResultView })
  @ApiErrors(402, 413, 422)
  async upload(@CurrentUser() user: AuthUser, @Req() req: Request): Promise<UploadResultView> {
    const parts = (Array.isArray(req.files) ? req.files : []) as UploadedPart[];
    const body = (req.body ?? {}) as Record<string, unknown>;
    const result = await this.files.completeUpload(user, Boolean(req.is('multipart/form-data')), body, parts);
    return {
      message: result.message,
      task_id: result.taskId,
      task_type: result.taskType,
      folder: result.folder,
      files: result.files.map((f) => FileView.of(f)),
    };
  }
}
