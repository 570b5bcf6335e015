import { Global, Module } from '@nestjs/common';
import { TeamsController } from './teams.controller';
import { TeamsService } from './teams.service';
import { UsageService } from './usage.service';

/** Teams, their plan and usage. Global: uploads and MCP tests count usage through UsageService. */
@Global()
@Module({
  controllers: [TeamsController],
  providers: [UsageService, TeamsService],
  exports: [UsageService, TeamsService],
})
export class TeamsModule {}
