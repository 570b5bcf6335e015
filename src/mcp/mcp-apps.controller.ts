import { Controller, Get, Param, Query, Res } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { Authenticated } from '../common/auth/decorators';
import { ApiErrors } from '../common/http/openapi';
import { setTotalCount } from '../common/http/pagination';
import { ListMcpAppsQuery, McpAppView } from './dto/mcp-app.dto';
import { McpAppsService } from './mcp-apps.service';

@ApiTags('MCP')
@Authenticated()
@Controller('mcp/apps')
export class McpAppsController {
  constructor(private readonly apps: McpAppsService) {}

  @Get()
  @ApiOperation({ summary: 'The library of MCP apps', description: 'Filter with search (alias q), category, provider, transport; page with limit and offset.' })
  @ApiOkResponse({ type: [McpAppView], headers: { 'X-Total-Count': { description: 'Total number of matching apps', schema: { type: 'integer', example: 34 } } } })
  @ApiErrors(422)
  async list(@Query() query: ListMcpAppsQuery, @Res({ passthrough: true }) res: Response): Promise<McpAppView[]> {
    const { items, total } = await this.apps.list(query);
    setTotalCount(res, total);
    return items.map((a) => McpAppView.of(a));
  }

  @Get(':app_id')
  @ApiOperation({ summary: 'One library app' })
  @ApiParam({ name: 'app_id', example: 'github' })
  @ApiOkResponse({ type: McpAppView })
  @ApiErrors(404)
  async get(@Param('app_id') id: string): Promise<McpAppView> {
    return McpAppView.of(await this.apps.get(id));
  }
}
