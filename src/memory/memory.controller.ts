import { All, Body, Controller, Delete, Get, HttpCode, NotFoundException, Post, Query, Res } from '@nestjs/common';
import { ApiCreatedResponse, ApiExcludeEndpoint, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import type { AuthUser } from '../common/auth/auth-user';
import { Authenticated, CurrentUser } from '../common/auth/decorators';
import { UuidParam } from '../common/http/id-params';
import { ApiErrors, DeletedUuidBody } from '../common/http/openapi';
import { setTotalCount } from '../common/http/pagination';
import { CreateMemoryDto, MemoryEntryView, MemoryQuery, StoreInfoView } from './dto/memory.dto';
import { MemoryService } from './memory.service';

@ApiTags('Memory')
@Authenticated()
@Controller('memory')
export class MemoryController {
  constructor(private readonly memory: MemoryService) {}

  // Declared before the `:memory_id` routes: Express matches in order, and
  // "store-info" must never reach them (CONTRACT §10).
  @Get('store-info')
  @ApiOperation({
    summary: 'Memory store information, for debugging',
    description:
      'Always 200 within 2 s once authenticated: when the database cannot answer in time (pool exhausted, unreachable, ' +
      'statement timeout) `status` is `unavailable`, counts are null and `error` says why.',
  })
  @ApiOkResponse({ type: StoreInfoView })
  storeInfo(@CurrentUser() user: AuthUser): Promise<StoreInfoView> {
    return this.memory.storeInfo(user.id);
  }

  /** Other methods on store-info are unknown routes, not a memory id. */
  @All('store-info')
  @ApiExcludeEndpoint()
  storeInfoOtherMethods(): never {
    throw new NotFoundException();
  }

  @Post()
  @HttpCode(201)
  @ApiOperation({ summary: 'Write a memory entry' })
  @ApiCreatedResponse({ type: MemoryEntryView, headers: { Location: { description: 'URL of the new entry', schema: { type: 'string' } } } })
  @ApiErrors(422)
  async create(
    @CurrentUser() user: AuthUser,
    @Body() body: CreateMemoryDto,
    @Res({ passthrough: true }) res: Response,
  ): Promise<MemoryEntryView> {
    const entry = await this.memory.create(user.id, {
      content: body.content,
      tags: body.tags,
      agentId: body.agent_id,
      metadata: body.metadata,
    });
    res.setHeader('Location', `/api/memory/${entry.id}`);
    return entry;
  }

  @Get()
  @ApiOperation({ summary: "Search or list the caller's memory", description: 'With `q`: best match first. Without: newest first.' })
  @ApiOkResponse({
    type: [MemoryEntryView],
    headers: { 'X-Total-Count': { description: 'Total number of matching entries', schema: { type: 'integer' } } },
  })
  @ApiErrors(422)
  async list(
    @CurrentUser() user: AuthUser,
    @Query() query: MemoryQuery,
    @Res({ passthrough: true }) res: Response,
  ): Promise<MemoryEntryView[]> {
    const [entries, total] = await this.memory.list(user.id, {
      q: query.q,
      agentId: query.agent_id,
      tag: query.tag,
      limit: query.limit,
      offset: query.offset,
    });
    setTotalCount(res, total);
    return entries;
  }

  @Get(':memory_id')
  @ApiOperation({ summary: 'One memory entry' })
  @ApiOkResponse({ type: MemoryEntryView })
  @ApiErrors(404, 422)
  get(@CurrentUser() user: AuthUser, @UuidParam('memory_id') id: string): Promise<MemoryEntryView> {
    return this.memory.get(user.id, id);
  }

  @Delete(':memory_id')
  @ApiOperation({ summary: 'Delete a memory entry' })
  @ApiOkResponse({ type: DeletedUuidBody })
  @ApiErrors(404, 422)
  async delete(@CurrentUser() user: AuthUser, @UuidParam('memory_id') id: string): Promise<DeletedUuidBody> {
    await this.memory.delete(user.id, id);
    return { id, deleted: true };
  }
}
