import { Module } from '@nestjs/common';
import { ConnectionTester } from './connection-tester';
import { McpAppsController } from './mcp-apps.controller';
import { McpAppsService } from './mcp-apps.service';
import { McpServersController } from './mcp-servers.controller';
import { McpServersService } from './mcp-servers.service';
import { McpTestsService } from './mcp-tests.service';

/** Saved MCP servers, the connection test and the library of MCP apps (CONTRACT §7). */
@Module({
  controllers: [McpServersController, McpAppsController],
  providers: [McpServersService, McpAppsService, McpTestsService, ConnectionTester],
  exports: [McpServersService, McpAppsService, McpTestsService],
})
export class McpModule {}
