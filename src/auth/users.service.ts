import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { AppConfig } from '../config/config';
import { Conflict, NotFound, ValidationFailed } from '../common/errors/errors';
import { Team } from '../teams/entities/team.entity';
import { User, UserRole } from './entities/user.entity';
import { TokensService } from './tokens.service';

export interface NewUser {
  email: string;
  role?: UserRole;
  teamName?: string;
  teamId?: number;
}

export interface CreatedUser {
  user: User;
  team: Team;
  token: string;
}

export const BOOTSTRAP_ADMIN_EMAIL = 'admin@localhost';

@Injectable()
export class UsersService {
  private readonly logger = new Logger(UsersService.name);

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly tokens: TokensService,
  ) {}

  /**
   * Creates a user, in a new team unless `teamId` names an existing one, and a
   * first token, in one transaction. 409 for a taken email.
   */
  async create(input: NewUser, tokenValue?: string): Promise<CreatedUser> {
    const email = input.email.trim().toLowerCase();
    return this.dataSource.transaction(async (manager) => {
      if (await manager.existsBy(User, { email })) throw new Conflict(`A user with email ${email} already exists`);
      let team: Team | null;
      if (input.teamId !== undefined) {
        team = await manager.findOneBy(Team, { id: input.teamId });
        if (!team) throw ValidationFailed.one(['body', 'team_id'], `Team ${input.teamId} does not exist`, 'value_error');
      } else {
        team = await manager.save(manager.create(Team, { name: input.teamName?.trim() || email }));
      }
      const user = await manager.save(manager.create(User, { email, role: input.role ?? 'member', teamId: team.id }));
      const { value } = await this.tokens.issue(user.id, 'default', { manager, value: tokenValue });
      return { user, team, token: value };
    });
  }

  list(limit: number, offset: number): Promise<[User[], number]> {
    return this.dataSource.getRepository(User).findAndCount({ order: { id: 'ASC' }, take: limit, skip: offset });
  }

  async get(id: number): Promise<User> {
    const user = await this.dataSource.getRepository(User).findOneBy({ id });
    if (!user) throw new NotFound('User');
    return user;
  }

  async getByEmail(email: string): Promise<User> {
    const user = await this.dataSource.getRepository(User).findOneBy({ email: email.trim().toLowerCase() });
    if (!user) throw new NotFound('User');
    return user;
  }

  /**
   * First start against an empty database: team `Default`, user
   * `admin@localhost` (admin) and a token, printed once unless it came from
   * BOOTSTRAP_ADMIN_TOKEN. Runs under the migration lock, so several instances
   * starting together bootstrap once.
   */
  async bootstrapAdmin(config: AppConfig): Promise<void> {
    if ((await this.dataSource.getRepository(User).count()) > 0) return;
    const created = await this.create({ email: BOOTSTRAP_ADMIN_EMAIL, role: 'admin', teamName: 'Default' }, config.bootstrapAdminToken);
    if (config.bootstrapAdminToken) {
      this.logger.log(`Created the admin user ${BOOTSTRAP_ADMIN_EMAIL}; its token is BOOTSTRAP_ADMIN_TOKEN`);
    } else {
      this.logger.warn(
        `Created the admin user ${BOOTSTRAP_ADMIN_EMAIL}. Its API token, shown only this once: ${created.token} ` +
          '(use it as "Authorization: Bearer <token>")',
      );
    }
  }
}
