import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, IsArray, IsDefined, IsObject, IsString, IsUUID, MaxLength, MinLength, ValidateBy } from 'class-validator';
import { IfPresent } from '../../agents/dto/if-present';
import { PaginationQuery } from '../../common/http/pagination';

/** Limits of a memory entry (docs/notes-agents.md). `content` is counted in UTF-8 bytes. */
export const MEMORY_LIMITS = { contentBytes: 32 * 1024, tags: 20, tagLength: 64, metadataBytes: 16 * 1024, query: 500 } as const;

const ENTRY_ID = '9d3f6b2a-1c4e-4f5a-8b7c-6d5e4f3a2b1c';
const AGENT_ID = '6f1c2a9e-3b7d-4c55-9a0e-1d2b3c4d5e6f';

/** At most `max` UTF-8 bytes. Named `maxLength` so it reports `string_too_long` like any over-long string. */
const MaxUtf8Bytes = (max: number) =>
  ValidateBy({
    name: 'maxLength',
    validator: {
      validate: (value: unknown) => typeof value !== 'string' || Buffer.byteLength(value, 'utf8') <= max,
      defaultMessage: () => `content must be at most ${max} bytes (UTF-8)`,
    },
  });

/** A JSON object of at most `max` bytes once serialised. */
const MaxJsonBytes = (max: number) =>
  ValidateBy({
    name: 'maxJsonBytes',
    validator: {
      validate: (value: unknown) => typeof value !== 'object' || value === null || Buffer.byteLength(JSON.stringify(value), 'utf8') <= max,
      defaultMessage: () => `metadata must be at most ${max} bytes as JSON`,
    },
  });

export class CreateMemoryDto {
  @ApiProperty({
    example: 'The customer prefers weekly summaries on Mondays.',
    maxLength: MEMORY_LIMITS.contentBytes,
    description: 'At most 32 KiB (UTF-8 bytes)',
  })
  @IsDefined()
  @IsString()
  @MinLength(1)
  @MaxUtf8Bytes(MEMORY_LIMITS.contentBytes)
  content: string;

  @ApiPropertyOptional({ type: [String], example: ['preferences', 'acme'], maxItems: MEMORY_LIMITS.tags, default: [] })
  @IfPresent()
  @IsArray()
  @ArrayMaxSize(MEMORY_LIMITS.tags)
  @IsString({ each: true })
  @MinLength(1, { each: true })
  @MaxLength(MEMORY_LIMITS.tagLength, { each: true })
  tags?: string[];

  @ApiPropertyOptional({ format: 'uuid', example: AGENT_ID, description: "One of the caller's agents; the entry is deleted with it" })
  @IfPresent()
  @IsUUID('all')
  agent_id?: string;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    example: { source: 'chat', turn: 12 },
    description: 'Free-form, at most 16 KiB as JSON',
  })
  @IfPresent()
  @IsObject()
  @MaxJsonBytes(MEMORY_LIMITS.metadataBytes)
  metadata?: Record<string, unknown>;
}

export class MemoryQuery extends PaginationQuery {
  @ApiPropertyOptional({
    example: 'weekly summary -daily',
    maxLength: MEMORY_LIMITS.query,
    description: 'Full-text search (web-search syntax: words, "quoted phrases", or, -exclusion); best match first. Blank = no search.',
  })
  @IfPresent()
  @IsString()
  @MaxLength(MEMORY_LIMITS.query)
  q?: string;

  @ApiPropertyOptional({ format: 'uuid', example: AGENT_ID, description: 'Only entries of this agent' })
  @IfPresent()
  @IsUUID('all')
  agent_id?: string;

  @ApiPropertyOptional({ example: 'preferences', description: 'Only entries carrying this tag' })
  @IfPresent()
  @IsString()
  @MaxLength(MEMORY_LIMITS.tagLength)
  tag?: string;
}

export class MemoryEntryView {
  @ApiProperty({ format: 'uuid', example: ENTRY_ID }) id: string;
  @ApiProperty({ example: 'The customer prefers weekly summaries on Mondays.' }) content: string;
  @ApiProperty({ type: [String], example: ['preferences', 'acme'] }) tags: string[];
  @ApiProperty({ format: 'uuid', example: AGENT_ID, nullable: true, type: String }) agent_id: string | null;
  @ApiProperty({ type: 'object', additionalProperties: true, example: { source: 'chat', turn: 12 } }) metadata: Record<string, unknown>;
  @ApiProperty({ example: '2026-11-21T10:00:00.000Z' }) created_at: string;
}

class DatabaseInfo {
  @ApiProperty({ example: '15.20', nullable: true, type: String, description: "The server's server_version; null when unavailable" })
  version: string | null;
}

export class StoreInfoView {
  @ApiProperty({ enum: ['postgres', 'pglite'], description: 'PostgreSQL at DATABASE_URL, or the embedded database' }) backend:
    'postgres' | 'pglite';
  @ApiProperty({ enum: ['ready', 'unavailable'] }) status: 'ready' | 'unavailable';
  @ApiProperty({ enum: ['full_text'] }) search: 'full_text';
  @ApiProperty({ example: 42, nullable: true, type: Number, description: "The caller's entries (null when unavailable)" }) entries:
    number | null;
  @ApiProperty({
    example: 5120,
    nullable: true,
    type: Number,
    description: "UTF-8 bytes of the caller's entries' content (null when unavailable)",
  })
  size_bytes: number | null;
  @ApiProperty({
    example: '2026-11-21T10:00:00.000Z',
    nullable: true,
    type: String,
    description: "When the caller's newest entry was written",
  })
  last_write_at: string | null;
  @ApiProperty({ type: DatabaseInfo }) database: DatabaseInfo;
  @ApiPropertyOptional({ example: 'Timed out after 1500 ms waiting for a database connection', description: 'Only when unavailable' })
  error?: string;
}
