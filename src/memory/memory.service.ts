import { Inject, Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import { DataSource, QueryRunner } from 'typeorm';
import { AgentsService } from '../agents/agents.service';
import { isDatabaseUnavailable } from '../common/errors/api-exception.filter';
import { NotFound, ValidationFailed } from '../common/errors/errors';
import { DATABASE_BACKEND } from '../database/database.module';
import type { DatabaseBackend } from '../database/database';
import { MemoryEntryView, StoreInfoView } from './dto/memory.dto';
import { MemoryEntry } from './entities/memory-entry.entity';

/** store-info answers within this long whatever the database does (CONTRACT §10 allows 2 s in all, auth included). */
export const STORE_INFO_DEADLINE_MS = 1200;
/** Its query is cancelled by PostgreSQL after this long, so a blocked query frees its connection by itself. */
export const STORE_INFO_STATEMENT_TIMEOUT_MS = 900;

export interface MemoryFilter {
  q?: string;
  agentId?: string;
  tag?: string;
  limit: number;
  offset: number;
}

interface EntryRow {
  id: string;
  content: string;
  tags: string[];
  agent_id: string | null;
  metadata: Record<string, unknown>;
  created_at: Date;
}

class DeadlineExceeded extends Error {}

@Injectable()
export class MemoryService {
  private readonly logger = new Logger(MemoryService.name);

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(DATABASE_BACKEND) private readonly backend: DatabaseBackend,
    private readonly agents: AgentsService,
  ) {}

  async create(
    userId: number,
    input: { content: string; tags?: string[]; agentId?: string; metadata?: Record<string, unknown> },
  ): Promise<MemoryEntryView> {
    const agentId = input.agentId?.toLowerCase() ?? null;
    // One transaction: the agent is share-locked until the entry is in, so a concurrent delete of it waits.
    const entry = await this.dataSource.transaction(async (manager) => {
      if (agentId && !(await this.agents.exists(userId, agentId, manager))) {
        throw ValidationFailed.one(['body', 'agent_id'], `Agent ${agentId} not found`, 'value_error');
      }
      return manager.save(
        manager.create(MemoryEntry, {
          id: randomUUID(),
          userId,
          agentId,
          content: input.content,
          tags: [...new Set(input.tags ?? [])],
          metadata: input.metadata ?? {},
        }),
      );
    });
    return toView({ ...entry, agent_id: entry.agentId, created_at: entry.createdAt });
  }

  /**
   * The caller's entries. With `q`: full-text search on the GIN-indexed
   * `search` column, best match (ts_rank) first; ties, and lists without `q`,
   * newest first, then by id, so pages are stable and both databases agree.
   */
  async list(userId: number, filter: MemoryFilter): Promise<[MemoryEntryView[], number]> {
    const params: unknown[] = [userId];
    const where = ['m.user_id = $1'];
    if (filter.agentId) {
      params.push(filter.agentId.toLowerCase());
      where.push(`m.agent_id = $${params.length}`);
    }
    if (filter.tag !== undefined) {
      params.push(filter.tag);
      where.push(`m.tags @> ARRAY[$${params.length}::text]`);
    }
    const q = filter.q?.trim();
    let rank = '';
    if (q) {
      params.push(q);
      const query = `websearch_to_tsquery('simple', $${params.length})`;
      where.push(`m.search @@ ${query}`);
      rank = `ts_rank(m.search, ${query}) DESC, `;
    }
    const whereSql = where.join(' AND ');
    const [{ total }]: { total: number }[] = await this.dataSource.query(
      `SELECT count(*)::int AS total FROM memory_entries m WHERE ${whereSql}`,
      params,
    );
    const rows: EntryRow[] = await this.dataSource.query(
      `SELECT m.id, m.content, m.tags, m.agent_id, m.metadata, m.created_at
         FROM memory_entries m
        WHERE ${whereSql}
        ORDER BY ${rank}m.created_at DESC, m.id
        LIMIT $${params.length + 1} OFFSET $${params.length + 2}`,
      [...params, filter.limit, filter.offset],
    );
    return [rows.map(toView), total];
  }

  async get(userId: number, id: string): Promise<MemoryEntryView> {
    const entry = await this.dataSource.getRepository(MemoryEntry).findOneBy({ id, userId });
    if (!entry) throw new NotFound('Memory entry');
    return toView({ ...entry, agent_id: entry.agentId, created_at: entry.createdAt });
  }

  async delete(userId: number, id: string): Promise<void> {
    const result = await this.dataSource.getRepository(MemoryEntry).delete({ id, userId });
    if (!result.affected) throw new NotFound('Memory entry');
  }

  /**
   * The caller's memory store at a glance. Never hangs and never fails: its
   * query runs on a pooled connection inside a transaction with a local
   * statement_timeout, and the whole (connection wait included) races a
   * deadline; past it, or on any error, the answer is `unavailable` with the
   * reason. Work left behind finishes (or times out) on its own and returns
   * its connection to the pool.
   */
  async storeInfo(userId: number): Promise<StoreInfoView> {
    const base = { backend: this.backend, search: 'full_text' as const };
    try {
      const row = await this.withDeadline(async (runner) => {
        const rows: { entries: number; size_bytes: string; last_write_at: Date | null; version: string }[] = await runner.query(
          `SELECT count(*)::int AS entries, COALESCE(sum(octet_length(content)), 0)::bigint AS size_bytes,
                  max(created_at) AS last_write_at, current_setting('server_version') AS version
             FROM memory_entries WHERE user_id = $1`,
          [userId],
        );
        return rows[0];
      });
      return {
        ...base,
        status: 'ready',
        entries: row.entries,
        size_bytes: Number(row.size_bytes),
        last_write_at: row.last_write_at?.toISOString() ?? null,
        database: { version: row.version },
      };
    } catch (err) {
      const error = describeFailure(err);
      this.logger.warn({ err }, `Memory store unavailable: ${error}`);
      return { ...base, status: 'unavailable', entries: null, size_bytes: null, last_write_at: null, database: { version: null }, error };
    }
  }

  private async withDeadline<T>(work: (runner: QueryRunner) => Promise<T>): Promise<T> {
    const runner = this.dataSource.createQueryRunner();
    const task = (async () => {
      try {
        await runner.connect();
        await runner.startTransaction();
        try {
          await runner.query(`SET LOCAL statement_timeout = ${STORE_INFO_STATEMENT_TIMEOUT_MS}`);
          const result = await work(runner);
          await runner.commitTransaction();
          return result;
        } catch (err) {
          await runner.rollbackTransaction().catch(() => undefined);
          throw err;
        }
      } finally {
        await runner.release().catch(() => undefined);
      }
    })();
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new DeadlineExceeded()), STORE_INFO_DEADLINE_MS);
    });
    try {
      return await Promise.race([task, deadline]);
    } finally {
      clearTimeout(timer);
      // Abandoned past the deadline: its outcome no longer matters, only that it is not an unhandled rejection.
      task.catch(() => undefined);
    }
  }
}

function describeFailure(err: unknown): string {
  if (err instanceof DeadlineExceeded) {
    return `No answer from the database within ${STORE_INFO_DEADLINE_MS} ms (connection pool exhausted or database busy)`;
  }
  const e = err as { code?: string; driverError?: { code?: string }; message?: string };
  const code = e.code ?? e.driverError?.code;
  if (code === '57014') return `Store query cancelled after the ${STORE_INFO_STATEMENT_TIMEOUT_MS} ms statement timeout`;
  const message = typeof e.message === 'string' ? e.message : String(err);
  // pg's pool gives up after DATABASE_CONNECT_TIMEOUT_MS, which may come before our deadline.
  if (/timeout exceeded when trying to connect/i.test(message)) {
    return 'Timed out waiting for a database connection (connection pool exhausted or database unreachable)';
  }
  if (isDatabaseUnavailable(err)) return `Database unreachable: ${message}`;
  return `Store query failed: ${message}`;
}

function toView(row: EntryRow): MemoryEntryView {
  return {
    id: row.id,
    content: row.content,
    tags: row.tags,
    agent_id: row.agent_id,
    metadata: row.metadata,
    created_at: row.created_at.toISOString(),
  };
}
