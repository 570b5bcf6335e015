import { Module } from '@nestjs/common';
import { AgentsModule } from '../agents/agents.module';
import { MemoryController } from './memory.controller';
import { MemoryService } from './memory.service';

@Module({
  imports: [AgentsModule],
  controllers: [MemoryController],
  providers: [MemoryService],
})
export class MemoryModule {}
