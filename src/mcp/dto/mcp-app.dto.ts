import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, Matches, MaxLength } from 'class-validator';
import { PaginationQuery } from '../../common/http/pagination';
import type { McpApp } from '../entities/mcp-app.entity';
import type { McpTransport } from '../entities/mcp-server.entity';
import { TRANSPORT_DISPLAY, TRANSPORTS } from '../mcp-config';

/** PostgreSQL cannot compare text with NUL in it. */
const NoNul = () => Matches(/^[^\0]*$/, { message: 'must not contain NUL characters' });

export class ListMcpAppsQuery extends PaginationQuery {
  @ApiPropertyOptional({ example: 'github', description: 'Case-insensitive match in the id, name or description' })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  @NoNul()
  search?: string;

  @ApiPropertyOptional({ example: 'github', description: 'Alias of search' })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  @NoNul()
  q?: string;

  @ApiPropertyOptional({ example: 'databases', description: 'Exact category, case-insensitive' })
  @IsOptional()
  @IsString()
  @MaxLength(100)
  @NoNul()
  category?: string;

  @ApiPropertyOptional({ example: 'Cloudflare', description: 'Exact provider, case-insensitive' })
  @IsOptional()
  @IsString()
  @MaxLength(100)
  @NoNul()
  provider?: string;

  @ApiPropertyOptional({ enum: [...TRANSPORTS], example: 'stdio' })
  @IsOptional()
  @IsIn(TRANSPORTS, { message: `transport must be one of ${TRANSPORTS.join(', ')}` })
  transport?: McpTransport;
}

export class McpAppView {
  @ApiProperty({ example: 'github' }) id: string;
  @ApiProperty({ example: 'GitHub' }) name: string;
  @ApiProperty({ example: "GitHub's hosted MCP server: repositories, issues, pull requests, Actions and code security." }) description: string;
  @ApiProperty({ example: 'developer-tools' }) category: string;
  @ApiProperty({ example: 'GitHub' }) provider: string;
  @ApiProperty({ enum: [...TRANSPORTS], example: 'streamable_http' }) transport: McpTransport;
  @ApiProperty({ enum: Object.values(TRANSPORT_DISPLAY), example: 'Streamable HTTP' }) transport_display: string;
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    example: { url: 'https://api.githubcopilot.com/mcp/' },
    description: 'The config for the transport. In stdio arguments, ${NAME} stands for the value of the required configuration NAME',
  })
  config_template: Record<string, unknown>;
  @ApiProperty({
    type: [String],
    example: ['Authorization'],
    description: 'What the user must supply: env variable names (stdio, sent in config.env) or header names (HTTP, sent in config.headers)',
  })
  required_config: string[];
  @ApiProperty({ enum: ['none', 'api_key', 'oauth'], example: 'oauth' }) auth_type: string;
  @ApiProperty({ type: String, nullable: true, example: 'https://github.com/github/github-mcp-server' }) homepage: string | null;

  static of(a: McpApp): McpAppView {
    return {
      id: a.id,
      name: a.name,
      description: a.description,
      category: a.category,
      provider: a.provider,
      transport: a.transport,
      transport_display: TRANSPORT_DISPLAY[a.transport],
      config_template: a.configTemplate,
      required_config: a.requiredConfig,
      auth_type: a.authType,
      homepage: a.homepage,
    };
  }
}
