import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, IsArray, IsDefined, IsString, MaxLength, MinLength, ValidateBy } from 'class-validator';
import { IfPresent } from './if-present';

/** Field limits of an agent (docs/notes-agents.md). */
export const AGENT_LIMITS = { name: 200, description: 2000, instructions: 32768, model: 200, mcpServers: 50 } as const;

/**
 * Every item a positive integer. Named `isInt` so it reports `int_parsing`;
 * it ignores a non-array, which `@IsArray()` reports as `list_type` alone.
 */
const EachPositiveInt = () =>
  ValidateBy({
    name: 'isInt',
    validator: {
      validate: (value: unknown) => !Array.isArray(value) || value.every((v) => Number.isInteger(v) && (v as number) > 0),
      defaultMessage: () => 'each value in mcp_server_ids must be a positive integer',
    },
  });

const EXAMPLE_ID = '6f1c2a9e-3b7d-4c55-9a0e-1d2b3c4d5e6f';

export class CreateAgentDto {
  @ApiProperty({ example: 'Researcher', minLength: 1, maxLength: AGENT_LIMITS.name })
  @IsDefined()
  @IsString()
  @MinLength(1)
  @MaxLength(AGENT_LIMITS.name)
  name: string;

  @ApiPropertyOptional({ example: 'Finds and summarises sources', maxLength: AGENT_LIMITS.description, default: '' })
  @IfPresent()
  @IsString()
  @MaxLength(AGENT_LIMITS.description)
  description?: string;

  @ApiPropertyOptional({ example: 'You research topics and cite your sources.', maxLength: AGENT_LIMITS.instructions, default: '' })
  @IfPresent()
  @IsString()
  @MaxLength(AGENT_LIMITS.instructions)
  instructions?: string;

  @ApiPropertyOptional({ example: 'gpt-4o', maxLength: AGENT_LIMITS.model, default: '' })
  @IfPresent()
  @IsString()
  @MaxLength(AGENT_LIMITS.model)
  model?: string;

  @ApiPropertyOptional({
    description: "Ids of the caller's MCP servers, without duplicates",
    type: [Number],
    example: [1, 2],
    maxItems: AGENT_LIMITS.mcpServers,
    default: [],
  })
  @IfPresent()
  @IsArray()
  @ArrayMaxSize(AGENT_LIMITS.mcpServers)
  @EachPositiveInt()
  mcp_server_ids?: number[];
}

export class UpdateAgentDto {
  @ApiPropertyOptional({ example: 'Researcher', minLength: 1, maxLength: AGENT_LIMITS.name })
  @IfPresent()
  @IsString()
  @MinLength(1)
  @MaxLength(AGENT_LIMITS.name)
  name?: string;

  @ApiPropertyOptional({ example: 'Finds and summarises sources', maxLength: AGENT_LIMITS.description })
  @IfPresent()
  @IsString()
  @MaxLength(AGENT_LIMITS.description)
  description?: string;

  @ApiPropertyOptional({ example: 'You research topics and cite your sources.', maxLength: AGENT_LIMITS.instructions })
  @IfPresent()
  @IsString()
  @MaxLength(AGENT_LIMITS.instructions)
  instructions?: string;

  @ApiPropertyOptional({ example: 'gpt-4o', maxLength: AGENT_LIMITS.model })
  @IfPresent()
  @IsString()
  @MaxLength(AGENT_LIMITS.model)
  model?: string;

  @ApiPropertyOptional({ description: "Replaces the agent's MCP servers", type: [Number], example: [1], maxItems: AGENT_LIMITS.mcpServers })
  @IfPresent()
  @IsArray()
  @ArrayMaxSize(AGENT_LIMITS.mcpServers)
  @EachPositiveInt()
  mcp_server_ids?: number[];
}

/** The Agent of CONTRACT §8; also the shape of a published version's agent snapshot. */
export class AgentView {
  @ApiProperty({ example: EXAMPLE_ID, format: 'uuid' }) id: string;
  @ApiProperty({ example: 'Researcher' }) name: string;
  @ApiProperty({ example: 'Finds and summarises sources' }) description: string;
  @ApiProperty({ example: 'You research topics and cite your sources.' }) instructions: string;
  @ApiProperty({ example: 'gpt-4o' }) model: string;
  @ApiProperty({ type: [Number], example: [1, 2] }) mcp_server_ids: number[];
  @ApiProperty({ example: '2026-11-21T10:00:00.000Z' }) created_at: string;
  @ApiProperty({ example: '2026-11-21T10:00:00.000Z' }) updated_at: string;
}
