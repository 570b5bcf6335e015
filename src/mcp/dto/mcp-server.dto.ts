import { ApiExtraModels, ApiProperty, ApiPropertyOptional, getSchemaPath } from '@nestjs/swagger';
import { IsBoolean, IsDefined, IsIn, IsObject, IsString, Matches, MaxLength, MinLength, ValidateIf } from 'class-validator';

/** PostgreSQL cannot store NUL in text. */
const NoNul = () => Matches(/^[^\0]*$/, { message: 'must not contain NUL characters' });
import type { McpServer, McpTransport } from '../entities/mcp-server.entity';
import { maskConfig, TRANSPORT_DISPLAY, TRANSPORTS } from '../mcp-config';

/**
 * Optional but not nullable: `@IsOptional()` skips every check for `null` too, and a `null` name or
 * config reached the service (a 500 from a null where-condition or from reading the masked config).
 */
const IfPresent = () => ValidateIf((_object: object, value: unknown) => value !== undefined);

/** OpenAPI only: `config` of a stdio server. */
export class StdioConfigSchema {
  @ApiProperty({ example: 'npx', description: 'A command name (looked up on PATH)' }) command: string;
  @ApiPropertyOptional({ type: [String], example: ['-y', '@modelcontextprotocol/server-memory'] }) args?: string[];
  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: { type: 'string' },
    example: { GITHUB_PERSONAL_ACCESS_TOKEN: '********' },
    description: 'Environment of the process (with PATH). Values of names containing authorization, token, key, secret or password are returned masked',
  })
  env?: Record<string, string>;
  @ApiPropertyOptional({ example: '/srv/mcp', description: 'Absolute working directory' }) cwd?: string;
}

/** OpenAPI only: `config` of an `sse` or `streamable_http` server. */
export class HttpConfigSchema {
  @ApiProperty({ example: 'https://mcp.notion.com/mcp', description: 'http or https URL' }) url: string;
  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: { type: 'string' },
    example: { Authorization: '********' },
    description: 'Request headers. Values of names containing authorization, token, key, secret or password are returned masked',
  })
  headers?: Record<string, string>;
  @ApiPropertyOptional({ example: 10000, minimum: 100, maximum: 600000, description: 'Connection-test timeout (capped by MCP_TEST_TIMEOUT_MS)' })
  timeout_ms?: number;
}

const CONFIG_DOC = {
  oneOf: [{ $ref: getSchemaPath(StdioConfigSchema) }, { $ref: getSchemaPath(HttpConfigSchema) }],
  description:
    'Per transport: stdio → {command, args?, env?, cwd?}; sse and streamable_http → {url, headers?, timeout_ms?}. ' +
    'Sending back the mask "********" for a secret value keeps the stored value.',
};

const TRANSPORT_DOC = { enum: [...TRANSPORTS], example: 'streamable_http' as const };

/**
 * What a connection needs: shared by creating a server and by testing one.
 * With `app_id`, name, transport and config may be left out (the app's are the defaults).
 */
@ApiExtraModels(StdioConfigSchema, HttpConfigSchema)
export class McpConnectionDto {
  @ApiPropertyOptional({ example: 'Notion', maxLength: 100, description: 'Required unless app_id is given (then the app name)' })
  @ValidateIf((o: McpConnectionDto) => o.app_id === undefined || o.name !== undefined)
  @IsDefined()
  @IsString()
  @MinLength(1)
  @MaxLength(100)
  @NoNul()
  name?: string;

  @ApiPropertyOptional({ ...TRANSPORT_DOC, description: 'Required unless app_id is given (then the app transport)' })
  @ValidateIf((o: McpConnectionDto) => o.app_id === undefined || o.transport !== undefined)
  @IsDefined()
  @IsIn(TRANSPORTS, { message: `transport must be one of ${TRANSPORTS.join(', ')}` })
  transport?: McpTransport;

  @ApiPropertyOptional({ ...CONFIG_DOC, example: { url: 'https://mcp.notion.com/mcp' } })
  @ValidateIf((o: McpConnectionDto) => o.app_id === undefined || o.config !== undefined)
  @IsDefined()
  @IsObject()
  config?: Record<string, unknown>;

  @ApiPropertyOptional({
    example: 'notion',
    description:
      'A library app: its transport, config, provider and description are the defaults. ' +
      'Members can test stdio servers only this way, supplying the app’s required_config in config.env',
  })
  @IfPresent()
  @IsString()
  @MaxLength(100)
  @NoNul()
  app_id?: string;
}

export class CreateMcpServerDto extends McpConnectionDto {
  @ApiPropertyOptional({ example: 'Our workspace', maxLength: 1000 })
  @IfPresent()
  @IsString()
  @MaxLength(1000)
  @NoNul()
  description?: string;

  @ApiPropertyOptional({ example: true, default: true })
  @IfPresent()
  @IsBoolean()
  is_active?: boolean;

  @ApiPropertyOptional({ example: false, default: false, description: 'Setting it unsets the default flag of the caller’s other servers' })
  @IfPresent()
  @IsBoolean()
  is_default?: boolean;
}

@ApiExtraModels(StdioConfigSchema, HttpConfigSchema)
export class UpdateMcpServerDto {
  @ApiPropertyOptional({ example: 'Notion (team)', maxLength: 100 })
  @IfPresent()
  @IsString()
  @MinLength(1)
  @MaxLength(100)
  @NoNul()
  name?: string;

  @ApiPropertyOptional(TRANSPORT_DOC)
  @IfPresent()
  @IsIn(TRANSPORTS, { message: `transport must be one of ${TRANSPORTS.join(', ')}` })
  transport?: McpTransport;

  @ApiPropertyOptional({ example: 'Our workspace', maxLength: 1000 })
  @IfPresent()
  @IsString()
  @MaxLength(1000)
  @NoNul()
  description?: string;

  @ApiPropertyOptional({ ...CONFIG_DOC, example: { url: 'https://mcp.notion.com/mcp', headers: { Authorization: '********' } } })
  @IfPresent()
  @IsObject()
  config?: Record<string, unknown>;

  @ApiPropertyOptional({ example: true })
  @IfPresent()
  @IsBoolean()
  is_active?: boolean;

  @ApiPropertyOptional({ example: true })
  @IfPresent()
  @IsBoolean()
  is_default?: boolean;
}

@ApiExtraModels(StdioConfigSchema, HttpConfigSchema)
export class McpServerView {
  @ApiProperty({ example: 1 }) id: number;
  @ApiProperty({ example: 1 }) user_id: number;
  @ApiProperty({ example: 'Notion' }) name: string;
  @ApiProperty(TRANSPORT_DOC) transport: McpTransport;
  @ApiProperty({ example: "Notion's hosted MCP server" }) description: string;
  @ApiProperty({ ...CONFIG_DOC, example: { url: 'https://mcp.notion.com/mcp', headers: { Authorization: '********' } } }) config: Record<string, unknown>;
  @ApiProperty({ example: true }) is_active: boolean;
  @ApiProperty({ example: false }) is_default: boolean;
  @ApiProperty({ enum: Object.values(TRANSPORT_DISPLAY), example: 'Streamable HTTP' }) transport_display: string;
  @ApiProperty({ example: '2026-11-21T10:00:00.000Z' }) created_at: string;
  @ApiProperty({ example: '2026-11-21T10:00:00.000Z' }) updated_at: string;
  @ApiProperty({ type: String, nullable: true, example: null }) connected_account: string | null;
  @ApiProperty({ type: String, nullable: true, example: 'notion' }) app_id: string | null;
  @ApiProperty({ type: String, nullable: true, example: 'Notion' }) provider: string | null;

  static of(s: McpServer): McpServerView {
    return {
      id: s.id,
      user_id: s.userId,
      name: s.name,
      transport: s.transport,
      description: s.description,
      config: maskConfig(s.config),
      is_active: s.isActive,
      is_default: s.isDefault,
      transport_display: TRANSPORT_DISPLAY[s.transport],
      created_at: s.createdAt.toISOString(),
      updated_at: s.updatedAt.toISOString(),
      connected_account: s.connectedAccount,
      app_id: s.appId,
      provider: s.provider,
    };
  }
}

/** `POST /api/mcp/test-connection`: validated exactly like a create. */
export class TestConnectionDto extends McpConnectionDto {}

/** A successful connection test, for the OpenAPI examples. */
export const TEST_SUCCESS_EXAMPLE = {
  success: true,
  message: 'Connected to example-server 1.2.0',
  details: {
    server_info: { name: 'example-server', version: '1.2.0' },
    protocol_version: '2025-06-18',
    capabilities: { tools: { listChanged: true } },
    tools: [{ name: 'echo', description: 'Echoes its input' }],
    tool_count: 1,
    elapsed_ms: 42,
  },
};

export class TestConnectionResultView {
  @ApiProperty({ example: true }) success: boolean;
  @ApiProperty({ example: TEST_SUCCESS_EXAMPLE.message }) message: string;
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description:
      'Success: server_info {name, version}, protocol_version, capabilities, tools [{name, description}], tool_count, elapsed_ms. ' +
      'Failure: error (timeout, connection_refused, dns_error, http_error, protocol_error, spawn_error, blocked_address, stdio_disabled, command_not_allowed), ' +
      'status (http_error only), elapsed_ms.',
    example: TEST_SUCCESS_EXAMPLE.details,
  })
  details: Record<string, unknown>;
}
