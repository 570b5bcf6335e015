import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { APP_CONFIG, AppConfig } from '../config/config';
import { TeamView } from './dto/team.dto';
import { Team } from './entities/team.entity';
import { limitsFor } from './plans';

@Injectable()
export class TeamsService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async view(teamId: number): Promise<TeamView> {
    const team = await this.dataSource.getRepository(Team).findOneByOrFail({ id: teamId });
    return TeamView.of(team, limitsFor(this.config, team.plan));
  }

  /**
   * CONTRACT §3 "reset": every counter back to 0 except storage_bytes, which
   * reflects the bytes actually stored and is recomputed from the files table.
   * The files module is built separately (its table has `team_id integer` and
   * `size bigint`); until its migration exists there is no `files` table, and
   * storage_bytes is left as it is rather than guessed.
   */
  async resetUsage(manager: EntityManager, teamId: number): Promise<void> {
    const [{ files }] = await manager.query<{ files: string | null }[]>(`SELECT to_regclass('public.files')::text AS files`);
    const storage = files ? `COALESCE((SELECT sum(size) FROM files WHERE team_id = $1), 0)` : 'usage_storage_bytes';
    await manager.query(
      `UPDATE teams SET usage_files_uploaded = 0, usage_mcp_connection_tests = 0, usage_storage_bytes = ${storage} WHERE id = $1`,
      [teamId],
    );
  }
}
