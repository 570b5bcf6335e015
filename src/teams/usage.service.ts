import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { APP_CONFIG, AppConfig, UsageCounter } from '../config/config';
import { QuotaExceeded } from '../common/errors/errors';
import { limitOf } from './plans';

const COLUMN: Record<UsageCounter, string> = {
  storage_bytes: 'usage_storage_bytes',
  files_uploaded: 'usage_files_uploaded',
  mcp_connection_tests: 'usage_mcp_connection_tests',
};

/**
 * Counts a team's usage and enforces its plan's limits. Other modules call it
 * inside their own transaction (pass its EntityManager), so the usage change
 * commits or rolls back with the work it counts.
 */
@Injectable()
export class UsageService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /**
   * Adds `amount` to the counter after checking the plan's limit; the team row
   * is locked (FOR UPDATE) so concurrent requests cannot both slip under it.
   * Throws QuotaExceeded (402) with `used` as it was before this request.
   */
  async consume(teamId: number, counter: UsageCounter, amount: number, manager?: EntityManager): Promise<void> {
    const run = async (m: EntityManager) => {
      const column = COLUMN[counter];
      const rows: { plan: string; used: string }[] = await m.query(`SELECT plan, ${column} AS used FROM teams WHERE id = $1 FOR UPDATE`, [
        teamId,
      ]);
      if (rows.length === 0) throw new Error(`Team ${teamId} does not exist`);
      const used = Number(rows[0].used);
      const limit = limitOf(this.config, rows[0].plan, counter);
      if (limit !== null && used + amount > limit) throw new QuotaExceeded(counter, limit, used);
      await m.query(`UPDATE teams SET ${column} = ${column} + $2 WHERE id = $1`, [teamId, amount]);
    };
    return manager ? run(manager) : this.dataSource.transaction(run);
  }

  /** Gives back `amount` (a deleted file's bytes); never below zero. */
  async release(teamId: number, counter: UsageCounter, amount: number, manager?: EntityManager): Promise<void> {
    const column = COLUMN[counter];
    await (manager ?? this.dataSource.manager).query(`UPDATE teams SET ${column} = GREATEST(${column} - $2, 0) WHERE id = $1`, [
      teamId,
      amount,
    ]);
  }
}
