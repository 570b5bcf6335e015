import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import type { AuthUser } from '../common/auth/auth-user';
import { NotFound } from '../common/errors/errors';
import { ApiToken } from './entities/api-token.entity';
import { generateToken, hashToken } from './tokens';

/** How stale `last_used_at` may get before a request refreshes it (saves a write per request). */
const LAST_USED_RESOLUTION_MS = 60_000;

export interface IssuedToken {
  token: ApiToken;
  value: string;
}

@Injectable()
export class TokensService {
  private readonly logger = new Logger(TokensService.name);

  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** Hash lookup by unique index; revoked and expired tokens do not match. */
  async authenticate(value: string): Promise<AuthUser | undefined> {
    const rows: { token_id: number; last_used_at: Date | null; id: number; email: string; role: 'admin' | 'member'; team_id: number }[] =
      await this.dataSource.query(
        `SELECT t.id AS token_id, t.last_used_at, u.id, u.email, u.role, u.team_id
           FROM api_tokens t JOIN users u ON u.id = t.user_id
          WHERE t.token_hash = $1 AND t.revoked_at IS NULL AND (t.expires_at IS NULL OR t.expires_at > now())`,
        [hashToken(value)],
      );
    const row = rows[0];
    if (!row) return undefined;
    if (!row.last_used_at || Date.now() - row.last_used_at.getTime() > LAST_USED_RESOLUTION_MS) {
      this.dataSource
        .query(`UPDATE api_tokens SET last_used_at = now() WHERE id = $1`, [row.token_id])
        .catch((err: unknown) => this.logger.warn({ err }, 'Could not record token use'));
    }
    return { id: row.id, email: row.email, role: row.role, teamId: row.team_id, tokenId: row.token_id };
  }

  /** Issues a token; `value` (when given) is used instead of a random one (the bootstrap admin's). */
  async issue(
    userId: number,
    name: string,
    options: { expiresInDays?: number; value?: string; manager?: EntityManager } = {},
  ): Promise<IssuedToken> {
    const value = options.value ?? generateToken();
    const repo = (options.manager ?? this.dataSource.manager).getRepository(ApiToken);
    const expiresAt = options.expiresInDays ? new Date(Date.now() + options.expiresInDays * 86_400_000) : null;
    const token = await repo.save(repo.create({ userId, name, tokenHash: hashToken(value), expiresAt }));
    return { token, value };
  }

  /** The user's tokens, oldest first, and their total; all of them without `page`. */
  list(userId: number, page?: { limit: number; offset: number }): Promise<[ApiToken[], number]> {
    return this.dataSource
      .getRepository(ApiToken)
      .findAndCount({ where: { userId }, order: { id: 'ASC' }, take: page?.limit, skip: page?.offset });
  }

  /** Revokes one of the user's tokens (404 for another user's). Revoking twice is harmless. */
  async revoke(userId: number | undefined, id: number): Promise<ApiToken> {
    const repo = this.dataSource.getRepository(ApiToken);
    const token = await repo.findOne({ where: userId === undefined ? { id } : { id, userId } });
    if (!token) throw new NotFound('Token');
    if (!token.revokedAt) {
      token.revokedAt = new Date();
      await repo.update({ id }, { revokedAt: token.revokedAt });
    }
    return token;
  }
}
