import { Controller, Get, Headers, Inject, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Response } from 'express';
import { timingSafeEqual } from 'node:crypto';
import { Public } from '../common/auth/decorators';
import { Unauthorized } from '../common/errors/errors';
import { APP_CONFIG, AppConfig } from '../config/config';
import { MetricsService } from './metrics.service';

function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** `GET /metrics` (outside /api), Prometheus text; guarded by METRICS_TOKEN when set. */
@ApiExcludeController()
@Public()
@Controller('metrics')
export class MetricsController {
  constructor(
    private readonly metrics: MetricsService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Get()
  async scrape(@Headers('authorization') authorization: string | undefined, @Res() res: Response): Promise<void> {
    const expected = this.config.metricsToken;
    if (expected && !sameSecret(authorization ?? '', `Bearer ${expected}`)) throw new Unauthorized('Not authenticated');
    res.setHeader('Content-Type', this.metrics.registry.contentType);
    res.send(await this.metrics.registry.metrics());
  }
}
