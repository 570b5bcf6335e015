import { Body, Controller, Delete, Get, HttpCode, Patch, Post, Query, Res } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import type { AuthUser } from '../common/auth/auth-user';
import { Authenticated, CurrentUser } from '../common/auth/decorators';
import { UuidParam } from '../common/http/id-params';
import { ApiErrors, DeletedUuidBody } from '../common/http/openapi';
import { PaginationQuery, setTotalCount } from '../common/http/pagination';
import { AgentInput, AgentsService } from './agents.service';
import { AgentView, CreateAgentDto, UpdateAgentDto } from './dto/agent.dto';

@ApiTags('Agents')
@Authenticated()
@Controller('agents')
export class AgentsController {
  constructor(private readonly agents: AgentsService) {}

  @Post()
  @HttpCode(201)
  @ApiOperation({ summary: 'Create an agent' })
  @ApiCreatedResponse({ type: AgentView, headers: { Location: { description: 'URL of the new agent', schema: { type: 'string' } } } })
  @ApiErrors(422)
  async create(@CurrentUser() user: AuthUser, @Body() body: CreateAgentDto, @Res({ passthrough: true }) res: Response): Promise<AgentView> {
    const agent = await this.agents.create(user.id, toInput(body) as AgentInput & { name: string });
    res.setHeader('Location', `/api/agents/${agent.id}`);
    return agent;
  }

  @Get()
  @ApiOperation({ summary: "The caller's agents, oldest first" })
  @ApiOkResponse({
    type: [AgentView],
    headers: { 'X-Total-Count': { description: 'Total number of agents', schema: { type: 'integer' } } },
  })
  @ApiErrors(422)
  async list(
    @CurrentUser() user: AuthUser,
    @Query() page: PaginationQuery,
    @Res({ passthrough: true }) res: Response,
  ): Promise<AgentView[]> {
    const [agents, total] = await this.agents.list(user.id, page.limit, page.offset);
    setTotalCount(res, total);
    return agents;
  }

  @Get(':agent_id')
  @ApiOperation({ summary: 'One agent' })
  @ApiOkResponse({ type: AgentView })
  @ApiErrors(404, 422)
  get(@CurrentUser() user: AuthUser, @UuidParam('agent_id') id: string): Promise<AgentView> {
    return this.agents.get(user.id, id);
  }

  @Patch(':agent_id')
  @ApiOperation({ summary: 'Change an agent (members not sent are kept; mcp_server_ids replaces the list)' })
  @ApiOkResponse({ type: AgentView })
  @ApiErrors(404, 422)
  update(@CurrentUser() user: AuthUser, @UuidParam('agent_id') id: string, @Body() body: UpdateAgentDto): Promise<AgentView> {
    return this.agents.update(user.id, id, toInput(body));
  }

  @Delete(':agent_id')
  @ApiOperation({
    summary: 'Delete an agent',
    description:
      "409 while a draft canvas of one of the caller's workforces uses it; published versions keep their snapshot and do not block.",
  })
  @ApiOkResponse({ type: DeletedUuidBody })
  @ApiErrors(404, 409, 422)
  async delete(@CurrentUser() user: AuthUser, @UuidParam('agent_id') id: string): Promise<DeletedUuidBody> {
    await this.agents.delete(user.id, id);
    return { id, deleted: true };
  }
}

function toInput(body: CreateAgentDto | UpdateAgentDto): AgentInput {
  return {
    name: body.name,
    description: body.description,
    instructions: body.instructions,
    model: body.model,
    mcpServerIds: body.mcp_server_ids,
  };
}
