import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import { DataSource, EntityManager, In } from 'typeorm';
import { Conflict, NotFound, ValidationFailed, ValidationItem } from '../common/errors/errors';
import { AgentView } from './dto/agent.dto';
import { AgentMcpServer } from './entities/agent-mcp-server.entity';
import { Agent } from './entities/agent.entity';

export interface AgentInput {
  name?: string;
  description?: string;
  instructions?: string;
  model?: string;
  mcpServerIds?: number[];
}

@Injectable()
export class AgentsService {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async create(userId: number, input: AgentInput & { name: string }): Promise<AgentView> {
    return this.dataSource.transaction(async (manager) => {
      const serverIds = input.mcpServerIds ?? [];
      await this.checkServers(manager, userId, serverIds);
      const agent = await manager.save(
        manager.create(Agent, {
          id: randomUUID(),
          userId,
          name: input.name,
          description: input.description ?? '',
          instructions: input.instructions ?? '',
          model: input.model ?? '',
        }),
      );
      await this.setServers(manager, agent.id, serverIds, false);
      return toView(agent, serverIds);
    });
  }

  async list(userId: number, limit: number, offset: number): Promise<[AgentView[], number]> {
    const [agents, total] = await this.dataSource
      .getRepository(Agent)
      .findAndCount({ where: { userId }, order: { createdAt: 'ASC', id: 'ASC' }, take: limit, skip: offset });
    return [await this.views(this.dataSource.manager, agents), total];
  }

  async get(userId: number, id: string): Promise<AgentView> {
    const agent = await this.dataSource.getRepository(Agent).findOneBy({ id, userId });
    if (!agent) throw new NotFound('Agent');
    return (await this.views(this.dataSource.manager, [agent]))[0];
  }

  async update(userId: number, id: string, input: AgentInput): Promise<AgentView> {
    return this.dataSource.transaction(async (manager) => {
      const agent = await manager.findOne(Agent, { where: { id, userId }, lock: { mode: 'pessimistic_write' } });
      if (!agent) throw new NotFound('Agent');
      if (input.mcpServerIds) await this.checkServers(manager, userId, input.mcpServerIds);
      if (input.name !== undefined) agent.name = input.name;
      if (input.description !== undefined) agent.description = input.description;
      if (input.instructions !== undefined) agent.instructions = input.instructions;
      if (input.model !== undefined) agent.model = input.model;
      // Always touch updated_at, even when only the MCP servers changed.
      agent.updatedAt = new Date();
      await manager.save(agent);
      if (input.mcpServerIds) await this.setServers(manager, agent.id, input.mcpServerIds, true);
      return (await this.views(manager, [agent]))[0];
    });
  }

  /**
   * Deletes an agent unless one of the owner's draft canvases still uses it
   * (409 naming them). Published versions keep their own snapshot and do not
   * block. Runs under the agent's row lock so two deletes do not both succeed.
   */
  async delete(userId: number, id: string): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      const agent = await manager.findOne(Agent, { where: { id, userId }, lock: { mode: 'pessimistic_write' } });
      if (!agent) throw new NotFound('Agent');
      const users: { id: string }[] = await manager.query(
        `SELECT id FROM workforces
          WHERE user_id = $1 AND nodes @> jsonb_build_array(jsonb_build_object('agent_id', $2::text))
          ORDER BY created_at, id`,
        [userId, id],
      );
      if (users.length > 0) throw new Conflict(`Agent is used by workforce(s): ${users.map((w) => w.id).join(', ')}`);
      await manager.delete(Agent, { id, userId });
    });
  }

  /** The caller's agents among `ids`, in the Agent shape (for publish snapshots); others are left out. */
  async findOwned(manager: EntityManager, userId: number, ids: string[]): Promise<AgentView[]> {
    if (ids.length === 0) return [];
    const agents = await manager.find(Agent, { where: { userId, id: In(ids) } });
    return this.views(manager, agents);
  }

  /**
   * Whether `id` is one of the caller's agents. Inside a transaction (`manager`)
   * the row is share-locked, so the agent cannot be deleted before it commits.
   */
  async exists(userId: number, id: string, manager: EntityManager = this.dataSource.manager): Promise<boolean> {
    const rows: unknown[] = await manager.query(`SELECT 1 FROM agents WHERE id = $1 AND user_id = $2 FOR SHARE`, [id, userId]);
    return rows.length > 0;
  }

  /** Every id must be one of the caller's MCP servers, once: one 422 item per bad index. */
  private async checkServers(manager: EntityManager, userId: number, ids: number[]): Promise<void> {
    if (ids.length === 0) return;
    // FOR SHARE: a server deleted concurrently cannot vanish between this check and the link insert.
    const owned: { id: number }[] = await manager.query(`SELECT id FROM mcp_servers WHERE user_id = $1 AND id = ANY($2::int[]) FOR SHARE`, [
      userId,
      ids,
    ]);
    const ownedIds = new Set(owned.map((r) => r.id));
    const seen = new Set<number>();
    const items: ValidationItem[] = [];
    ids.forEach((serverId, index) => {
      const loc = ['body', 'mcp_server_ids', index];
      if (!ownedIds.has(serverId)) items.push({ loc, msg: `MCP server ${serverId} not found`, type: 'value_error' });
      else if (seen.has(serverId)) items.push({ loc, msg: `MCP server ${serverId} is listed twice`, type: 'value_error' });
      seen.add(serverId);
    });
    if (items.length > 0) throw new ValidationFailed(items);
  }

  private async setServers(manager: EntityManager, agentId: string, ids: number[], replace: boolean): Promise<void> {
    if (replace) await manager.delete(AgentMcpServer, { agentId });
    if (ids.length === 0) return;
    await manager.insert(
      AgentMcpServer,
      ids.map((mcpServerId, position) => ({ agentId, mcpServerId, position })),
    );
  }

  private async views(manager: EntityManager, agents: Agent[]): Promise<AgentView[]> {
    if (agents.length === 0) return [];
    const links = await manager.find(AgentMcpServer, {
      where: { agentId: In(agents.map((a) => a.id)) },
      order: { position: 'ASC' },
    });
    const byAgent = new Map<string, number[]>();
    for (const link of links) byAgent.set(link.agentId, [...(byAgent.get(link.agentId) ?? []), link.mcpServerId]);
    return agents.map((a) => toView(a, byAgent.get(a.id) ?? []));
  }
}

function toView(agent: Agent, mcpServerIds: number[]): AgentView {
  return {
    id: agent.id,
    name: agent.name,
    description: agent.description,
    instructions: agent.instructions,
    model: agent.model,
    mcp_server_ids: mcpServerIds,
    created_at: agent.createdAt.toISOString(),
    updated_at: agent.updatedAt.toISOString(),
  };
}
