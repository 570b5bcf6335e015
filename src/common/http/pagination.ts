import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, Max, Min } from 'class-validator';
import type { Response } from 'express';

/** `limit` (default 50, at most 200) and `offset` (default 0) of every list endpoint. */
export class PaginationQuery {
  @ApiPropertyOptional({ minimum: 1, maximum: 200, default: 50 })
  @Type(() => Number)
  @IsInt({ message: 'limit must be a whole number' })
  @Min(1)
  @Max(200)
  limit: number = 50;

  // Bounded so a huge offset is a 422, not an out-of-range error from the database (a 500).
  @ApiPropertyOptional({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, default: 0 })
  @Type(() => Number)
  @IsInt({ message: 'offset must be a whole number' })
  @Min(0)
  @Max(Number.MAX_SAFE_INTEGER)
  offset: number = 0;
}

/** Sends the total of a list in `X-Total-Count`. */
export function setTotalCount(res: Response, total: number): void {
  res.setHeader('X-Total-Count', String(total));
}
