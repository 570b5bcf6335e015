import { Body, Controller, Delete, Get, HttpCode, Patch, Post, Query, Res } from '@nestjs/common';
import { ApiBody, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import type { AuthUser } from '../common/auth/auth-user';
import { Authenticated, CurrentUser } from '../common/auth/decorators';
import { IntIdParam } from '../common/http/id-params';
import { ApiErrors, DeletedIntBody, ErrorBody } from '../common/http/openapi';
import { PaginationQuery, setTotalCount } from '../common/http/pagination';
import { CreateMcpServerDto, McpServerView, TEST_SUCCESS_EXAMPLE, TestConnectionDto, TestConnectionResultView, UpdateMcpServerDto } from './dto/mcp-server.dto';
import { McpBodyPipe } from './mcp-body.pipe';
import { McpServersService } from './mcp-servers.service';
import { McpTestsService } from './mcp-tests.service';

const TOTAL_HEADER = { 'X-Total-Count': { description: 'Total number of items', schema: { type: 'integer', example: 3 } } };

@ApiTags('MCP')
@Authenticated()
@Controller('mcp')
export class McpServersController {
  constructor(
    private readonly servers: McpServersService,
    private readonly tests: McpTestsService,
  ) {}

  @Post('servers')
  @HttpCode(201)
  @ApiOperation({ summary: 'Save an MCP server (with app_id, the library app gives the defaults)' })
  @ApiBody({ type: CreateMcpServerDto })
  @ApiCreatedResponse({ type: McpServerView, headers: { Location: { description: 'URL of the new server', schema: { type: 'string', example: '/api/mcp/servers/1' } } } })
  @ApiErrors(409, 422)
  async create(
    @CurrentUser() user: AuthUser,
    @Body(new McpBodyPipe(CreateMcpServerDto)) body: Record<string, unknown>,
    @Res({ passthrough: true }) res: Response,
  ): Promise<McpServerView> {
    const server = await this.servers.create(user, body as CreateMcpServerDto);
    res.setHeader('Location', `/api/mcp/servers/${server.id}`);
    return McpServerView.of(server);
  }

  @Get('servers')
  @ApiOperation({ summary: "The caller's MCP servers" })
  @ApiOkResponse({ type: [McpServerView], headers: TOTAL_HEADER })
  @ApiErrors(422)
  async list(@CurrentUser() user: AuthUser, @Query() query: PaginationQuery, @Res({ passthrough: true }) res: Response): Promise<McpServerView[]> {
    const { items, total } = await this.servers.list(user.id, query.limit, query.offset);
    setTotalCount(res, total);
    return items.map((s) => McpServerView.of(s));
  }

  @Get('servers/:server_id')
  @ApiOperation({ summary: 'One of the caller’s MCP servers (secret config values masked)' })
  @ApiOkResponse({ type: McpServerView })
  @ApiErrors(404, 422)
  async get(@CurrentUser() user: AuthUser, @IntIdParam('server_id') id: number): Promise<McpServerView> {
    return McpServerView.of(await this.servers.get(user.id, id));
  }

  @Patch('servers/:server_id')
  @ApiOperation({ summary: 'Change an MCP server; "********" for a secret value keeps the stored one' })
  @ApiBody({ type: UpdateMcpServerDto })
  @ApiOkResponse({ type: McpServerView })
  @ApiErrors(404, 409, 422)
  async update(
    @CurrentUser() user: AuthUser,
    @IntIdParam('server_id') id: number,
    @Body(new McpBodyPipe(UpdateMcpServerDto)) body: Record<string, unknown>,
  ): Promise<McpServerView> {
    return McpServerView.of(await this.servers.update(user, id, body as UpdateMcpServerDto));
  }

  @Delete('servers/:server_id')
  @ApiOperation({ summary: 'Delete an MCP server' })
  @ApiOkResponse({ type: DeletedIntBody })
  @ApiErrors(404, 422)
  async remove(@CurrentUser() user: AuthUser, @IntIdParam('server_id') id: number): Promise<DeletedIntBody> {
    await this.servers.remove(user.id, id);
    return { id, deleted: true };
  }

  @Post('test-connection')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Connect to an MCP server without saving it: initialise, list tools, disconnect',
    description:
      'Bearer required: the service connects (or starts a process) on the caller’s behalf. 200 whenever the test ran, ' +
      'with success false and details.error naming the failure. Addresses that are loopback, private, link-local, unique-local ' +
      'or cloud metadata are refused (blocked_address) unless MCP_ALLOW_PRIVATE_NETWORKS=true. stdio needs MCP_STDIO_ENABLED=true; ' +
      'admins may run commands named in MCP_STDIO_ALLOWED_COMMANDS, members only a library app (app_id). Each test counts in the ' +
      'team’s mcp_connection_tests usage.',
  })
  @ApiBody({ type: TestConnectionDto })
  @ApiOkResponse({
    type: TestConnectionResultView,
    examples: {
      success: {
        summary: 'Connected',
        value: TEST_SUCCESS_EXAMPLE,
      },
      http_error: { summary: 'HTTP error', value: { success: false, message: 'The server answered HTTP 500', details: { error: 'http_error', status: 500, elapsed_ms: 12 } } },
      blocked: {
        summary: 'Blocked address',
        value: { success: false, message: 'Refusing to connect: 169.254.169.254 is a linkLocal address (set MCP_ALLOW_PRIVATE_NETWORKS=true to allow private networks)', details: { error: 'blocked_address', elapsed_ms: 0 } },
      },
    },
  })
  @ApiResponse({ status: 429, description: 'Too many tests in flight for this user (MCP_MAX_TESTS_IN_FLIGHT); Retry-After says when to retry', type: ErrorBody })
  @ApiErrors(402, 422)
  async testConnection(@CurrentUser() user: AuthUser, @Body(new McpBodyPipe(TestConnectionDto)) body: Record<string, unknown>): Promise<TestConnectionResultView> {
    return this.tests.testConnection(user, body as TestConnectionDto);
  }
}
