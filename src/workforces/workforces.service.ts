import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import { DataSource, EntityManager } from 'typeorm';
import { AgentsService } from '../agents/agents.service';
import { Conflict, NotFound, ValidationFailed } from '../common/errors/errors';
import { Canvas, CanvasEdge, CanvasNode, DEFAULT_VIEWPORT, referencedAgentIds, validateForPublish, Viewport } from './canvas';
import { CanvasView, PublishedView, VersionSummaryView, VersionView, WorkforceView } from './dto/workforce.dto';
import { WorkforceVersion } from './entities/workforce-version.entity';
import { Workforce } from './entities/workforce.entity';

/** A canvas as validated by the DTOs (viewport optional: kept when omitted). */
export interface CanvasInput {
  nodes: CanvasNode[];
  edges: CanvasEdge[];
  viewport?: Viewport;
}

@Injectable()
export class WorkforcesService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly agents: AgentsService,
  ) {}

  async create(userId: number, input: { name: string; description?: string; canvas?: CanvasInput }): Promise<WorkforceView> {
    const repo = this.dataSource.getRepository(Workforce);
    const canvas = input.canvas ? normalizeCanvas(input.canvas, DEFAULT_VIEWPORT) : { nodes: [], edges: [], viewport: DEFAULT_VIEWPORT };
    const workforce = await repo.save(
      repo.create({
        id: randomUUID(),
        userId,
        name: input.name,
        description: input.description ?? '',
        ...canvas,
        revision: input.canvas ? 1 : 0,
        canvasUpdatedAt: new Date(),
      }),
    );
    return workforceView(workforce);
  }

  async list(userId: number, limit: number, offset: number): Promise<[WorkforceView[], number]> {
    const [rows, total] = await this.dataSource
      .getRepository(Workforce)
      .findAndCount({ where: { userId }, order: { createdAt: 'ASC', id: 'ASC' }, take: limit, skip: offset });
    return [rows.map(workforceView), total];
  }

  async get(userId: number, id: string): Promise<WorkforceView> {
    return workforceView(await this.find(this.dataSource.manager, userId, id));
  }

  async update(userId: number, id: string, input: { name?: string; description?: string }): Promise<WorkforceView> {
    return this.dataSource.transaction(async (manager) => {
      const workforce = await this.find(manager, userId, id, true);
      if (input.name !== undefined) workforce.name = input.name;
      if (input.description !== undefined) workforce.description = input.description;
      workforce.updatedAt = new Date();
      return workforceView(await manager.save(workforce));
    });
  }

  /** Deletes the workforce with its draft and its versions. */
  async delete(userId: number, id: string): Promise<void> {
    const result = await this.dataSource.getRepository(Workforce).delete({ id, userId });
    if (!result.affected) throw new NotFound('Workforce');
  }

  async getCanvas(userId: number, id: string): Promise<CanvasView> {
    return canvasView(await this.find(this.dataSource.manager, userId, id));
  }

  /**
   * Saves the draft and increments its revision in one conditional UPDATE, so
   * of two editors who loaded revision N only the first save wins; the second
   * gets 409 instead of silently overwriting (no read-modify-write window).
   */
  async saveCanvas(userId: number, id: string, input: CanvasInput, expectedRevision?: number): Promise<CanvasView> {
    const nodes = input.nodes.map(normalizeNode);
    const edges = input.edges.map(normalizeEdge);
    const rows: { revision: number; canvas_updated_at: Date; viewport: Viewport }[] = await this.dataSource.query(
      // Wrapped in a SELECT: TypeORM answers a bare UPDATE ... RETURNING with [rows, count].
      `WITH saved AS (
         UPDATE workforces
            SET nodes = $3::jsonb, edges = $4::jsonb, viewport = COALESCE($5::jsonb, viewport),
                revision = revision + 1, canvas_updated_at = now(), updated_at = now()
          WHERE id = $1 AND user_id = $2 AND ($6::int IS NULL OR revision = $6::int)
          RETURNING revision, canvas_updated_at, viewport)
       SELECT * FROM saved`,
      [
        id,
        userId,
        JSON.stringify(nodes),
        JSON.stringify(edges),
        input.viewport ? JSON.stringify(normalizeViewport(input.viewport)) : null,
        expectedRevision ?? null,
      ],
    );
    const row = rows[0];
    if (!row) {
      const current = await this.find(this.dataSource.manager, userId, id);
      throw new Conflict(
        `Canvas revision conflict: the draft is at revision ${current.revision}, not ${expectedRevision}; reload it and retry`,
      );
    }
    return {
      workforce_id: id,
      revision: row.revision,
      nodes,
      edges,
      viewport: row.viewport,
      updated_at: row.canvas_updated_at.toISOString(),
    };
  }

  /**
   * Publishes the draft as a new immutable version (canvas + agent snapshots).
   * The workforce row is locked FOR UPDATE for the whole transaction, so
   * concurrent publishes of one draft queue up: the first creates the version,
   * the others find it published at this revision and return it unchanged.
   */
  async publish(userId: number, id: string): Promise<PublishedView> {
    return this.dataSource.transaction(async (manager) => {
      const workforce = await this.find(manager, userId, id, true);
      if (workforce.version > 0 && workforce.publishedRevision === workforce.revision && workforce.publishedAt) {
        return {
          id,
          status: 'published',
          version: workforce.version,
          published_at: workforce.publishedAt.toISOString(),
          revision: workforce.revision,
        };
      }
      const agents = await this.agents.findOwned(manager, userId, referencedAgentIds(workforce.nodes));
      const byId = new Map(agents.map((a) => [a.id, a]));
      const problems = validateForPublish(workforce, (agentId) => byId.has(agentId));
      if (problems.length > 0) throw new ValidationFailed(problems);

      const version = manager.create(WorkforceVersion, {
        workforceId: id,
        version: workforce.version + 1,
        revision: workforce.revision,
        canvas: { nodes: workforce.nodes, edges: workforce.edges, viewport: workforce.viewport },
        agents: referencedAgentIds(workforce.nodes).map((agentId) => byId.get(agentId)!),
        publishedAt: new Date(),
      });
      await manager.save(WorkforceVersion, version);
      await manager.update(
        Workforce,
        { id },
        { version: version.version, publishedRevision: version.revision, publishedAt: version.publishedAt, updatedAt: version.publishedAt },
      );
      return {
        id,
        status: 'published',
        version: version.version,
        published_at: version.publishedAt.toISOString(),
        revision: version.revision,
      };
    });
  }

  async listVersions(userId: number, id: string, limit: number, offset: number): Promise<[VersionSummaryView[], number]> {
    await this.find(this.dataSource.manager, userId, id);
    const [rows, total] = await this.dataSource.getRepository(WorkforceVersion).findAndCount({
      select: { version: true, revision: true, publishedAt: true },
      where: { workforceId: id },
      order: { version: 'DESC' },
      take: limit,
      skip: offset,
    });
    return [rows.map((v) => ({ version: v.version, revision: v.revision, published_at: v.publishedAt.toISOString() })), total];
  }

  async getVersion(userId: number, id: string, version: number): Promise<VersionView> {
    await this.find(this.dataSource.manager, userId, id);
    const row = await this.dataSource.getRepository(WorkforceVersion).findOneBy({ workforceId: id, version });
    if (!row) throw new NotFound('Workforce version');
    return {
      workforce_id: id,
      version: row.version,
      revision: row.revision,
      published_at: row.publishedAt.toISOString(),
      canvas: row.canvas,
      agents: row.agents,
    };
  }

  private async find(manager: EntityManager, userId: number, id: string, lock = false): Promise<Workforce> {
    const workforce = await manager.findOne(Workforce, {
      where: { id, userId },
      ...(lock ? { lock: { mode: 'pessimistic_write' as const } } : {}),
    });
    if (!workforce) throw new NotFound('Workforce');
    return workforce;
  }
}

/** Only the members the contract defines, in a fixed order; agent ids lower-cased so lookups by id match. */
function normalizeNode(node: CanvasNode): CanvasNode {
  return {
    id: node.id,
    type: node.type,
    ...(node.agent_id !== undefined ? { agent_id: node.agent_id.toLowerCase() } : {}),
    position: { x: node.position.x, y: node.position.y },
    ...(node.data !== undefined ? { data: node.data } : {}),
  };
}

function normalizeEdge(edge: CanvasEdge): CanvasEdge {
  return { id: edge.id, source: edge.source, target: edge.target, ...(edge.data !== undefined ? { data: edge.data } : {}) };
}

function normalizeViewport(v: Viewport): Viewport {
  return { x: v.x, y: v.y, zoom: v.zoom };
}

function normalizeCanvas(input: CanvasInput, viewport: Viewport): Canvas {
  return {
    nodes: input.nodes.map(normalizeNode),
    edges: input.edges.map(normalizeEdge),
    viewport: normalizeViewport(input.viewport ?? viewport),
  };
}

function workforceView(w: Workforce): WorkforceView {
  return {
    id: w.id,
    name: w.name,
    description: w.description,
    status: w.version > 0 ? 'published' : 'draft',
    version: w.version,
    // Never published: any saved draft is unpublished work.
    has_unpublished_changes: w.version > 0 ? w.revision !== w.publishedRevision : w.revision > 0,
    published_at: w.publishedAt?.toISOString() ?? null,
    created_at: w.createdAt.toISOString(),
    updated_at: w.updatedAt.toISOString(),
  };
}

function canvasView(w: Workforce): CanvasView {
  return {
    workforce_id: w.id,
    revision: w.revision,
    nodes: w.nodes,
    edges: w.edges,
    viewport: w.viewport,
    updated_at: w.canvasUpdatedAt.toISOString(),
  };
}
