import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsDefined,
  IsIn,
  IsInt,
  IsNumber,
  IsObject,
  IsString,
  IsUUID,
  Max,
  MaxLength,
  Min,
  MinLength,
  ValidateNested,
} from 'class-validator';
import { AgentView } from '../../agents/dto/agent.dto';
import { IfPresent } from '../../agents/dto/if-present';
import { CANVAS_LIMITS } from '../canvas';

export const WORKFORCE_LIMITS = { name: 200, description: 2000 } as const;

const WORKFORCE_ID = '0b7e4d1c-5a6f-4e2b-8c3d-9f1a2b3c4d5e';
const AGENT_ID = '6f1c2a9e-3b7d-4c55-9a0e-1d2b3c4d5e6f';

export const EXAMPLE_NODES = [
  { id: 'lead', type: 'coordinator', position: { x: 0, y: 0 }, data: { label: 'Lead' } },
  { id: 'research', type: 'agent', agent_id: AGENT_ID, position: { x: 240, y: 0 }, data: { label: 'Researcher' } },
];
export const EXAMPLE_EDGES = [{ id: 'lead-research', source: 'lead', target: 'research' }];
const EXAMPLE_VIEWPORT = { x: 0, y: 0, zoom: 1 };

export class PositionDto {
  @ApiProperty({ example: 240 })
  @IsDefined()
  @IsNumber({ allowNaN: false, allowInfinity: false })
  x: number;

  @ApiProperty({ example: 0 })
  @IsDefined()
  @IsNumber({ allowNaN: false, allowInfinity: false })
  y: number;
}

export class ViewportDto extends PositionDto {
  @ApiProperty({ example: 1, minimum: 0.01, maximum: 100 })
  @IsDefined()
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @Min(0.01)
  @Max(100)
  zoom: number;
}

export class CanvasNodeDto {
  @ApiProperty({ example: 'research', minLength: 1, maxLength: CANVAS_LIMITS.idLength })
  @IsDefined()
  @IsString()
  @MinLength(1)
  @MaxLength(CANVAS_LIMITS.idLength)
  id: string;

  @ApiProperty({ enum: ['coordinator', 'agent'], example: 'agent' })
  @IsDefined()
  @IsIn(['coordinator', 'agent'])
  type: 'coordinator' | 'agent';

  @ApiPropertyOptional({
    format: 'uuid',
    example: AGENT_ID,
    description: "For agent nodes: one of the caller's agents (checked at publish)",
  })
  @IfPresent()
  @IsUUID('all')
  agent_id?: string;

  @ApiProperty({ type: PositionDto })
  @IsDefined()
  @IsObject()
  @ValidateNested()
  @Type(() => PositionDto)
  position: PositionDto;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    example: { label: 'Researcher' },
    description: 'Free-form, for the client',
  })
  @IfPresent()
  @IsObject()
  data?: Record<string, unknown>;
}

export class CanvasEdgeDto {
  @ApiProperty({ example: 'lead-research', minLength: 1, maxLength: CANVAS_LIMITS.idLength })
  @IsDefined()
  @IsString()
  @MinLength(1)
  @MaxLength(CANVAS_LIMITS.idLength)
  id: string;

  @ApiProperty({ example: 'lead', description: 'Id of a node', maxLength: CANVAS_LIMITS.idLength })
  @IsDefined()
  @IsString()
  @MaxLength(CANVAS_LIMITS.idLength)
  source: string;

  @ApiProperty({ example: 'research', description: 'Id of a node', maxLength: CANVAS_LIMITS.idLength })
  @IsDefined()
  @IsString()
  @MaxLength(CANVAS_LIMITS.idLength)
  target: string;

  @ApiPropertyOptional({ type: 'object', additionalProperties: true, example: {}, description: 'Free-form, for the client' })
  @IfPresent()
  @IsObject()
  data?: Record<string, unknown>;
}

/** A canvas as sent at creation. */
export class CanvasInputDto {
  @ApiProperty({ type: [CanvasNodeDto], maxItems: CANVAS_LIMITS.nodes, example: EXAMPLE_NODES })
  @IsDefined()
  @IsArray()
  @ArrayMaxSize(CANVAS_LIMITS.nodes)
  @ValidateNested({ each: true })
  @Type(() => CanvasNodeDto)
  nodes: CanvasNodeDto[];

  @ApiProperty({ type: [CanvasEdgeDto], maxItems: CANVAS_LIMITS.edges, example: EXAMPLE_EDGES })
  @IsDefined()
  @IsArray()
  @ArrayMaxSize(CANVAS_LIMITS.edges)
  @ValidateNested({ each: true })
  @Type(() => CanvasEdgeDto)
  edges: CanvasEdgeDto[];

  @ApiPropertyOptional({ type: ViewportDto, description: 'Kept as it was when omitted ({x:0,y:0,zoom:1} for a new workforce)' })
  @IfPresent()
  @IsObject()
  @ValidateNested()
  @Type(() => ViewportDto)
  viewport?: ViewportDto;
}

/** `PUT /canvas`: the whole draft, plus the revision it was based on. */
export class SaveCanvasDto extends CanvasInputDto {
  @ApiPropertyOptional({
    example: 3,
    minimum: 0,
    description: 'The revision this draft was based on; another one answers 409. Omit to overwrite unconditionally.',
  })
  @IfPresent()
  @IsInt()
  @Min(0)
  revision?: number;
}

export class CreateWorkforceDto {
  @ApiProperty({ example: 'Market research', minLength: 1, maxLength: WORKFORCE_LIMITS.name })
  @IsDefined()
  @IsString()
  @MinLength(1)
  @MaxLength(WORKFORCE_LIMITS.name)
  name: string;

  @ApiPropertyOptional({ example: 'Researches a market and writes a brief', maxLength: WORKFORCE_LIMITS.description, default: '' })
  @IfPresent()
  @IsString()
  @MaxLength(WORKFORCE_LIMITS.description)
  description?: string;

  @ApiPropertyOptional({ type: CanvasInputDto, description: 'Initial draft canvas, saved at revision 1 (else empty at revision 0)' })
  @IfPresent()
  @IsObject()
  @ValidateNested()
  @Type(() => CanvasInputDto)
  canvas?: CanvasInputDto;
}

export class UpdateWorkforceDto {
  @ApiPropertyOptional({ example: 'Market research', minLength: 1, maxLength: WORKFORCE_LIMITS.name })
  @IfPresent()
  @IsString()
  @MinLength(1)
  @MaxLength(WORKFORCE_LIMITS.name)
  name?: string;

  @ApiPropertyOptional({ example: 'Researches a market and writes a brief', maxLength: WORKFORCE_LIMITS.description })
  @IfPresent()
  @IsString()
  @MaxLength(WORKFORCE_LIMITS.description)
  description?: string;
}

export class WorkforceView {
  @ApiProperty({ format: 'uuid', example: WORKFORCE_ID }) id: string;
  @ApiProperty({ example: 'Market research' }) name: string;
  @ApiProperty({ example: 'Researches a market and writes a brief' }) description: string;
  @ApiProperty({ enum: ['draft', 'published'], description: '"published" once a version exists' }) status: 'draft' | 'published';
  @ApiProperty({ example: 1, description: 'Latest published version, 0 before the first publish' }) version: number;
  @ApiProperty({ example: false, description: "The draft's revision differs from the latest published version's" })
  has_unpublished_changes: boolean;
  @ApiProperty({ example: '2026-11-21T10:00:00.000Z', nullable: true, type: String }) published_at: string | null;
  @ApiProperty({ example: '2026-11-21T10:00:00.000Z' }) created_at: string;
  @ApiProperty({ example: '2026-11-21T10:00:00.000Z' }) updated_at: string;
}

export class CanvasNodeView {
  @ApiProperty({ example: 'research' }) id: string;
  @ApiProperty({ enum: ['coordinator', 'agent'] }) type: string;
  @ApiPropertyOptional({ format: 'uuid', example: AGENT_ID }) agent_id?: string;
  @ApiProperty({ type: PositionDto }) position: PositionDto;
  @ApiPropertyOptional({ type: 'object', additionalProperties: true }) data?: Record<string, unknown>;
}

export class CanvasEdgeView {
  @ApiProperty({ example: 'lead-research' }) id: string;
  @ApiProperty({ example: 'lead' }) source: string;
  @ApiProperty({ example: 'research' }) target: string;
  @ApiPropertyOptional({ type: 'object', additionalProperties: true }) data?: Record<string, unknown>;
}

export class CanvasView {
  @ApiProperty({ format: 'uuid', example: WORKFORCE_ID }) workforce_id: string;
  @ApiProperty({ example: 3, description: 'Increments with every save of the draft' }) revision: number;
  @ApiProperty({ type: [CanvasNodeView], example: EXAMPLE_NODES }) nodes: CanvasNodeView[];
  @ApiProperty({ type: [CanvasEdgeView], example: EXAMPLE_EDGES }) edges: CanvasEdgeView[];
  @ApiProperty({ type: ViewportDto, example: EXAMPLE_VIEWPORT }) viewport: ViewportDto;
  @ApiProperty({ example: '2026-11-21T10:00:00.000Z' }) updated_at: string;
}

export class PublishedView {
  @ApiProperty({ format: 'uuid', example: WORKFORCE_ID }) id: string;
  @ApiProperty({ enum: ['published'] }) status: 'published';
  @ApiProperty({ example: 1 }) version: number;
  @ApiProperty({ example: '2026-11-21T10:00:00.000Z' }) published_at: string;
  @ApiProperty({ example: 3, description: 'The draft revision this version was made from' }) revision: number;
}

export class VersionSummaryView {
  @ApiProperty({ example: 1 }) version: number;
  @ApiProperty({ example: 3 }) revision: number;
  @ApiProperty({ example: '2026-11-21T10:00:00.000Z' }) published_at: string;
}

export class VersionCanvasView {
  @ApiProperty({ type: [CanvasNodeView], example: EXAMPLE_NODES }) nodes: CanvasNodeView[];
  @ApiProperty({ type: [CanvasEdgeView], example: EXAMPLE_EDGES }) edges: CanvasEdgeView[];
  @ApiProperty({ type: ViewportDto, example: EXAMPLE_VIEWPORT }) viewport: ViewportDto;
}

export class VersionView extends VersionSummaryView {
  @ApiProperty({ format: 'uuid', example: WORKFORCE_ID }) workforce_id: string;
  @ApiProperty({ type: VersionCanvasView }) canvas: VersionCanvasView;
  @ApiProperty({ type: [AgentView], description: 'Every agent the canvas used, as it was at publish time' }) agents: AgentView[];
}
