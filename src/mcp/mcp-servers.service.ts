import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager, Not, QueryFailedError } from 'typeorm';
import type { AuthUser } from '../common/auth/auth-user';
import { Conflict, NotFound, ValidationFailed, ValidationItem } from '../common/errors/errors';
import type { CreateMcpServerDto, UpdateMcpServerDto } from './dto/mcp-server.dto';
import { McpServer } from './entities/mcp-server.entity';
import { McpAppsService } from './mcp-apps.service';
import { mergeTemplate, restoreMasked, validateConfig } from './mcp-config';

const conflict = (name: string) => new Conflict(`An MCP server named "${name}" already exists`);

/** Saved MCP servers, always within the owner's rows (another user's server is simply not found). */
@Injectable()
export class McpServersService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly apps: McpAppsService,
  ) {}

  async create(user: AuthUser, body: CreateMcpServerDto): Promise<McpServer> {
    const app = body.app_id !== undefined ? await this.apps.forInput(body.app_id) : undefined;
    const transport = body.transport ?? app!.transport;
    const sent = body.config ?? {};
    // The app's template is a default only for the app's own transport.
    const merged = app && app.transport === transport ? mergeTemplate(app.configTemplate, sent) : sent;
    // A mask on create has no stored value to stand for.
    const { config, items } = restoreMasked(merged, {});
    items.push(...validateConfig(transport, config));
    if (items.length > 0) throw new ValidationFailed(items);
    const name = body.name ?? app!.name;

    return this.write(async (m) => {
      await this.lockOwner(m, user.id);
      if (await m.existsBy(McpServer, { userId: user.id, name })) throw conflict(name);
      if (body.is_default) await m.update(McpServer, { userId: user.id, isDefault: true }, { isDefault: false });
      return m.save(
        m.create(McpServer, {
          userId: user.id,
          name,
          transport,
          description: body.description ?? app?.description ?? '',
          config,
          isActive: body.is_active ?? true,
          isDefault: body.is_default ?? false,
          connectedAccount: null,
          appId: app?.id ?? null,
          provider: app?.provider ?? null,
        }),
      );
    }, name);
  }

  async list(userId: number, limit: number, offset: number): Promise<{ items: McpServer[]; total: number }> {
    const [items, total] = await this.dataSource.getRepository(McpServer).findAndCount({ where: { userId }, order: { id: 'ASC' }, skip: offset, take: limit });
    return { items, total };
  }

  async get(userId: number, id: number): Promise<McpServer> {
    const server = await this.dataSource.getRepository(McpServer).findOneBy({ id, userId });
    if (!server) throw new NotFound('MCP server');
    return server;
  }

  async update(user: AuthUser, id: number, body: UpdateMcpServerDto): Promise<McpServer> {
    return this.write(async (m) => {
      await this.lockOwner(m, user.id);
      const server = await m.findOneBy(McpServer, { id, userId: user.id });
      if (!server) throw new NotFound('MCP server');
      const transport = body.transport ?? server.transport;
      const items: ValidationItem[] = [];
      let config = server.config;
      if (body.config !== undefined) {
        const restored = restoreMasked(body.config, server.config);
        items.push(...restored.items);
        config = restored.config;
      }
      // A new transport needs a config of its kind: the stored one is checked when none is sent.
      if (body.config !== undefined || transport !== server.transport) items.push(...validateConfig(transport, config));
      if (items.length > 0) throw new ValidationFailed(items);
      if (body.name !== undefined && body.name !== server.name && (await m.existsBy(McpServer, { userId: user.id, name: body.name, id: Not(id) }))) {
        throw conflict(body.name);
      }
      if (body.is_default) await m.update(McpServer, { userId: user.id, isDefault: true, id: Not(id) }, { isDefault: false });
      m.merge(McpServer, server, {
        name: body.name ?? server.name,
        transport,
        description: body.description ?? server.description,
        config,
        isActive: body.is_active ?? server.isActive,
        isDefault: body.is_default ?? server.isDefault,
      });
      return m.save(server);
    }, body.name);
  }

  async remove(userId: number, id: number): Promise<void> {
    const result = await this.dataSource.getRepository(McpServer).delete({ id, userId });
    if (!result.affected) throw new NotFound('MCP server');
  }

  /**
   * Serialises one owner's writes (name uniqueness, the single default) on
   * their user row; the unique indexes stay the last word.
   */
  private async lockOwner(m: EntityManager, userId: number): Promise<void> {
    await m.query('SELECT id FROM users WHERE id = $1 FOR UPDATE', [userId]);
  }

  private async write<T>(work: (m: EntityManager) => Promise<T>, name: string | undefined): Promise<T> {
    try {
      return await this.dataSource.transaction(work);
    } catch (err) {
      if (!(err instanceof QueryFailedError)) throw err;
      const constraint = (err.driverError as { constraint?: string }).constraint;
      if (constraint === 'mcp_servers_user_id_name_key' && name !== undefined) throw conflict(name);
      // The error filter logs failed queries with their parameters, which hold the config's secrets.
      Object.defineProperty(err, 'parameters', { value: err.parameters?.map(() => '[redacted]') });
      throw err;
    }
  }
}
