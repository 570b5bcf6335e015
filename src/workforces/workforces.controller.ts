import { Body, Controller, Delete, Get, HttpCode, Patch, Post, Put, Query, Res } from '@nestjs/common';
import { ApiBody, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import type { AuthUser } from '../common/auth/auth-user';
import { Authenticated, CurrentUser } from '../common/auth/decorators';
import { IntIdParam, UuidParam } from '../common/http/id-params';
import { ApiErrors, DeletedUuidBody } from '../common/http/openapi';
import { PaginationQuery, setTotalCount } from '../common/http/pagination';
import {
  CanvasView,
  CreateWorkforceDto,
  EXAMPLE_EDGES,
  EXAMPLE_NODES,
  PublishedView,
  SaveCanvasDto,
  UpdateWorkforceDto,
  VersionSummaryView,
  VersionView,
  WorkforceView,
} from './dto/workforce.dto';
import { WorkforcesService } from './workforces.service';

const TOTAL_HEADER = { 'X-Total-Count': { description: 'Total number of items', schema: { type: 'integer' } } };

@ApiTags('Workforces')
@Authenticated()
@Controller('workforces')
export class WorkforcesController {
  constructor(private readonly workforces: WorkforcesService) {}

  @Post()
  @HttpCode(201)
  @ApiOperation({ summary: 'Create a workforce (optionally with its first draft canvas, saved at revision 1)' })
  @ApiBody({
    type: CreateWorkforceDto,
    examples: {
      empty: { value: { name: 'Market research' } },
      withCanvas: { value: { name: 'Market research', canvas: { nodes: EXAMPLE_NODES, edges: EXAMPLE_EDGES } } },
    },
  })
  @ApiCreatedResponse({
    type: WorkforceView,
    headers: { Location: { description: 'URL of the new workforce', schema: { type: 'string' } } },
  })
  @ApiErrors(422)
  async create(
    @CurrentUser() user: AuthUser,
    @Body() body: CreateWorkforceDto,
    @Res({ passthrough: true }) res: Response,
  ): Promise<WorkforceView> {
    const workforce = await this.workforces.create(user.id, { name: body.name, description: body.description, canvas: body.canvas });
    res.setHeader('Location', `/api/workforces/${workforce.id}`);
    return workforce;
  }

  @Get()
  @ApiOperation({ summary: "The caller's workforces, oldest first" })
  @ApiOkResponse({ type: [WorkforceView], headers: TOTAL_HEADER })
  @ApiErrors(422)
  async list(
    @CurrentUser() user: AuthUser,
    @Query() page: PaginationQuery,
    @Res({ passthrough: true }) res: Response,
  ): Promise<WorkforceView[]> {
    const [rows, total] = await this.workforces.list(user.id, page.limit, page.offset);
    setTotalCount(res, total);
    return rows;
  }

  @Get(':workforce_id')
  @ApiOperation({ summary: 'One workforce' })
  @ApiOkResponse({ type: WorkforceView })
  @ApiErrors(404, 422)
  get(@CurrentUser() user: AuthUser, @UuidParam('workforce_id') id: string): Promise<WorkforceView> {
    return this.workforces.get(user.id, id);
  }

  @Patch(':workforce_id')
  @ApiOperation({ summary: 'Rename or describe a workforce (the canvas has its own route)' })
  @ApiOkResponse({ type: WorkforceView })
  @ApiErrors(404, 422)
  update(@CurrentUser() user: AuthUser, @UuidParam('workforce_id') id: string, @Body() body: UpdateWorkforceDto): Promise<WorkforceView> {
    return this.workforces.update(user.id, id, { name: body.name, description: body.description });
  }

  @Delete(':workforce_id')
  @ApiOperation({ summary: 'Delete a workforce with its draft and all its versions' })
  @ApiOkResponse({ type: DeletedUuidBody })
  @ApiErrors(404, 422)
  async delete(@CurrentUser() user: AuthUser, @UuidParam('workforce_id') id: string): Promise<DeletedUuidBody> {
    await this.workforces.delete(user.id, id);
    return { id, deleted: true };
  }

  @Get(':workforce_id/canvas')
  @ApiOperation({ summary: 'The draft canvas' })
  @ApiOkResponse({ type: CanvasView })
  @ApiErrors(404, 422)
  getCanvas(@CurrentUser() user: AuthUser, @UuidParam('workforce_id') id: string): Promise<CanvasView> {
    return this.workforces.getCanvas(user.id, id);
  }

  @Put(':workforce_id/canvas')
  @ApiOperation({
    summary: 'Save the draft canvas',
    description:
      'Replaces nodes and edges (and the viewport when sent) and increments `revision`. Send the `revision` you loaded: ' +
      'if someone saved since, the answer is 409 and nothing changes. Structure rules (agents exist, edges connect nodes, ...) ' +
      'are checked at publish, so a draft may be incomplete.',
  })
  @ApiBody({
    type: SaveCanvasDto,
    examples: { draft: { value: { nodes: EXAMPLE_NODES, edges: EXAMPLE_EDGES, viewport: { x: 0, y: 0, zoom: 1 }, revision: 1 } } },
  })
  @ApiOkResponse({ type: CanvasView })
  @ApiErrors(404, 409, 422)
  saveCanvas(@CurrentUser() user: AuthUser, @UuidParam('workforce_id') id: string, @Body() body: SaveCanvasDto): Promise<CanvasView> {
    return this.workforces.saveCanvas(user.id, id, { nodes: body.nodes, edges: body.edges, viewport: body.viewport }, body.revision);
  }

  @Post(':workforce_id/publish')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Publish the draft as a new immutable version',
    description:
      'Validates the draft (at least one agent node; unique node and edge ids; every agent_id one of your agents; edges between ' +
      'existing nodes; no self-loops or duplicate edges; at most one coordinator) and reports every problem at once with `loc` ' +
      'paths such as `["canvas","nodes",1,"agent_id"]`. Publishing an unchanged draft again returns the current version.',
  })
  @ApiOkResponse({ type: PublishedView })
  @ApiErrors(404, 422)
  publish(@CurrentUser() user: AuthUser, @UuidParam('workforce_id') id: string): Promise<PublishedView> {
    return this.workforces.publish(user.id, id);
  }

  @Get(':workforce_id/versions')
  @ApiOperation({ summary: 'Published versions, newest first' })
  @ApiOkResponse({ type: [VersionSummaryView], headers: TOTAL_HEADER })
  @ApiErrors(404, 422)
  async versions(
    @CurrentUser() user: AuthUser,
    @UuidParam('workforce_id') id: string,
    @Query() page: PaginationQuery,
    @Res({ passthrough: true }) res: Response,
  ): Promise<VersionSummaryView[]> {
    const [rows, total] = await this.workforces.listVersions(user.id, id, page.limit, page.offset);
    setTotalCount(res, total);
    return rows;
  }

  @Get(':workforce_id/versions/:version')
  @ApiOperation({ summary: 'One published version with its canvas and agent snapshots' })
  @ApiOkResponse({ type: VersionView })
  @ApiErrors(404, 422)
  version(
    @CurrentUser() user: AuthUser,
    @UuidParam('workforce_id') id: string,
    @IntIdParam('version') version: number,
  ): Promise<VersionView> {
    return this.workforces.getVersion(user.id, id, version);
  }
}
