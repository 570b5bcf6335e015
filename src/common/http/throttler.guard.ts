import { Injectable } from '@nestjs/common';
import { ThrottlerGuard } from '@nestjs/throttler';
import { createHash } from 'node:crypto';
import type { Request } from 'express';

/**
 * Rate limits per token (its hash, never the token itself) and, for callers
 * without one, per client address (CONTRACT §1). Runs before authentication,
 * so a flood of bad tokens is limited too.
 */
@Injectable()
export class TokenThrottlerGuard extends ThrottlerGuard {
  protected override async getTracker(req: Record<string, any>): Promise<string> {
    const header = (req as Request).headers?.authorization;
    if (typeof header === 'string' && header.length > 0) {
      return `token:${createHash('sha256').update(header).digest('hex')}`;
    }
    return `ip:${(req as Request).ip ?? 'unknown'}`;
  }
}
