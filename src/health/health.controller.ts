import { Controller, Get, HttpCode } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiServiceUnavailableResponse, ApiTags } from '@nestjs/swagger';
import { InjectDataSource } from '@nestjs/typeorm';
import { HealthCheck, HealthCheckService, HealthIndicatorService, TypeOrmHealthIndicator } from '@nestjs/terminus';
import { DataSource } from 'typeorm';
import { Public } from '../common/auth/decorators';

@ApiTags('Health')
@Public()
@Controller('health')
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly db: TypeOrmHealthIndicator,
    private readonly indicators: HealthIndicatorService,
    @InjectDataSource() private readonly dataSource: DataSource,
  ) {}

  @Get()
  @HttpCode(200)
  @ApiOperation({ summary: 'Liveness: 200 whenever the process runs, database or not' })
  @ApiOkResponse({ schema: { example: { status: 'ok' } } })
  live(): { status: 'ok' } {
    return { status: 'ok' };
  }

  @Get('ready')
  @HealthCheck()
  @ApiOperation({ summary: 'Readiness: database reachable and migrations applied (503 otherwise)' })
  @ApiServiceUnavailableResponse({ description: 'Database unreachable or migrations pending' })
  ready() {
    return this.health.check([
      () => this.db.pingCheck('database', { timeout: 1500 }),
      async () => {
        const session = this.indicators.check('migrations');
        try {
          const pending = await this.dataSource.showMigrations();
          return pending ? session.down('migrations pending') : session.up();
        } catch {
          return session.down('unknown');
        }
      },
    ]);
  }
}
