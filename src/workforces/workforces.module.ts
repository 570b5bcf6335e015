import { Module } from '@nestjs/common';
import { AgentsModule } from '../agents/agents.module';
import { WorkforcesController } from './workforces.controller';
import { WorkforcesService } from './workforces.service';

@Module({
  imports: [AgentsModule],
  controllers: [WorkforcesController],
  providers: [WorkforcesService],
  exports: [WorkforcesService],
})
export class WorkforcesModule {}
