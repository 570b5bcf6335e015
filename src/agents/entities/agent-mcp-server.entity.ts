import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { McpServer } from '../../mcp/entities/mcp-server.entity';
import { Agent } from './agent.entity';

/** One MCP server of an agent; deleting either side removes the link (no dangling ids). */
@Entity({ name: 'agent_mcp_servers' })
@Index('agent_mcp_servers_mcp_server_id_idx', ['mcpServerId'])
export class AgentMcpServer {
  @PrimaryColumn({ name: 'agent_id', type: 'uuid' })
  agentId: string;

  @PrimaryColumn({ name: 'mcp_server_id', type: 'int' })
  mcpServerId: number;

  /** Index in the `mcp_server_ids` the client sent, to give them back in that order. */
  @Column({ type: 'int' })
  position: number;

  @ManyToOne(() => Agent, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'agent_id', foreignKeyConstraintName: 'agent_mcp_servers_agent_id_fkey' })
  agent?: Agent;

  @ManyToOne(() => McpServer, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'mcp_server_id', foreignKeyConstraintName: 'agent_mcp_servers_mcp_server_id_fkey' })
  mcpServer?: McpServer;
}
