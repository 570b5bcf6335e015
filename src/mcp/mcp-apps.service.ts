import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { NotFound, ValidationFailed } from '../common/errors/errors';
import type { ListMcpAppsQuery } from './dto/mcp-app.dto';
import { McpApp } from './entities/mcp-app.entity';

const likePattern = (text: string) => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/** The library of MCP apps (read-only over HTTP; operators add rows in the database). */
@Injectable()
export class McpAppsService {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async list(query: ListMcpAppsQuery): Promise<{ items: McpApp[]; total: number }> {
    const qb = this.dataSource.getRepository(McpApp).createQueryBuilder('app');
    const search = query.search ?? query.q;
    if (search !== undefined && search !== '') {
      qb.andWhere(`(app.id ILIKE :pattern OR app.name ILIKE :pattern OR app.description ILIKE :pattern)`, { pattern: likePattern(search) });
    }
    if (query.category !== undefined) qb.andWhere('lower(app.category) = lower(:category)', { category: query.category });
    if (query.provider !== undefined) qb.andWhere('lower(app.provider) = lower(:provider)', { provider: query.provider });
    if (query.transport !== undefined) qb.andWhere('app.transport = :transport', { transport: query.transport });
    const [items, total] = await qb.orderBy('app.name', 'ASC').addOrderBy('app.id', 'ASC').offset(query.offset).limit(query.limit).getManyAndCount();
    return { items, total };
  }

  async get(id: string): Promise<McpApp> {
    // Ids never hold NUL, which PostgreSQL refuses even to compare.
    const app = id.includes('\0') ? null : await this.dataSource.getRepository(McpApp).findOneBy({ id });
    if (!app) throw new NotFound('MCP app');
    return app;
  }

  /** The app a request body names in `app_id`; an unknown id is invalid input (422), not a missing resource. */
  async forInput(id: string): Promise<McpApp> {
    const app = await this.dataSource.getRepository(McpApp).findOneBy({ id });
    if (!app) throw ValidationFailed.one(['body', 'app_id'], 'MCP app not found', 'value_error');
    return app;
  }
}
