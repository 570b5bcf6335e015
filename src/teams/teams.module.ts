import { Global, Module } from '@nestjs/common';
import { UsageService } from './usage.service';

/** Teams, their plan and usage. Global: uploads and MCP tests count usage through UsageService. */
@Global()
@Module({
  providers: [UsageService],
  exports: [UsageService],
})
export class TeamsModule {}
