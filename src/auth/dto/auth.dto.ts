import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsDefined, IsEmail, IsIn, IsInt, IsOptional, IsString, Max, MaxLength, Min, MinLength } from 'class-validator';
import type { ApiToken } from '../entities/api-token.entity';
import type { User } from '../entities/user.entity';
import type { Team } from '../../teams/entities/team.entity';

export class CreateTokenDto {
  @ApiProperty({ example: 'ci', maxLength: 100 })
  @IsDefined()
  @IsString()
  @MinLength(1)
  @MaxLength(100)
  name: string;

  @ApiPropertyOptional({ example: 90, minimum: 1, maximum: 3650, description: 'Omit for a token that does not expire' })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(3650)
  expires_in_days?: number;
}

export class TokenView {
  @ApiProperty({ example: 3 }) id: number;
  @ApiProperty({ example: 'ci' }) name: string;
  @ApiProperty({ example: '2026-11-21T10:00:00.000Z' }) created_at: string;
  @ApiProperty({ example: null, nullable: true, type: String }) last_used_at: string | null;
  @ApiProperty({ example: null, nullable: true, type: String }) expires_at: string | null;
  @ApiProperty({ example: null, nullable: true, type: String }) revoked_at: string | null;

  static of(t: ApiToken): TokenView {
    return {
      id: t.id,
      name: t.name,
      created_at: t.createdAt.toISOString(),
      last_used_at: t.lastUsedAt?.toISOString() ?? null,
      expires_at: t.expiresAt?.toISOString() ?? null,
      revoked_at: t.revokedAt?.toISOString() ?? null,
    };
  }
}

export class CreatedTokenView {
  @ApiProperty({ example: 3 }) id: number;
  @ApiProperty({ example: 'ci' }) name: string;
  @ApiProperty({ example: 'apt_q0d4...', description: 'Shown only in this response' }) token: string;
  @ApiProperty({ example: '2026-11-21T10:00:00.000Z' }) created_at: string;
  @ApiProperty({ example: null, nullable: true, type: String }) expires_at: string | null;
}

export class RevokedTokenView {
  @ApiProperty({ example: 3 }) id: number;
  @ApiProperty({ example: true }) revoked: boolean;
}

class MeUser {
  @ApiProperty({ example: 1 }) id: number;
  @ApiProperty({ example: 'admin@localhost' }) email: string;
  @ApiProperty({ enum: ['admin', 'member'] }) role: string;
}

class MeTeam {
  @ApiProperty({ example: 1 }) id: number;
  @ApiProperty({ example: 'Default' }) name: string;
  @ApiProperty({ example: 'Free' }) plan: string;
}

export class MeView {
  @ApiProperty({ type: MeUser }) user: MeUser;
  @ApiProperty({ type: MeTeam }) team: MeTeam;
}

export class CreateUserDto {
  @ApiProperty({ example: 'ada@example.com' })
  @IsDefined()
  @IsString()
  @IsEmail({}, { message: 'email must be an email address' })
  @MaxLength(254)
  email: string;

  @ApiPropertyOptional({ example: 'Acme', description: 'Name of the new team (ignored with team_id)' })
  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  team_name?: string;

  @ApiPropertyOptional({ example: 1, description: 'Existing team to join instead of creating one' })
  @IsOptional()
  @IsInt()
  @Min(1)
  team_id?: number;

  @ApiPropertyOptional({ enum: ['admin', 'member'], default: 'member' })
  @IsOptional()
  @IsIn(['admin', 'member'])
  role?: 'admin' | 'member';
}

export class CreatedUserView {
  @ApiProperty({ example: 2 }) user_id: number;
  @ApiProperty({ example: 2 }) team_id: number;
  @ApiProperty({ example: 'ada@example.com' }) email: string;
  @ApiProperty({ enum: ['admin', 'member'] }) role: string;
  @ApiProperty({ example: 'apt_q0d4...', description: 'Shown only in this response' }) token: string;
}

export class UserView {
  @ApiProperty({ example: 2 }) id: number;
  @ApiProperty({ example: 'ada@example.com' }) email: string;
  @ApiProperty({ enum: ['admin', 'member'] }) role: string;
  @ApiProperty({ example: 2 }) team_id: number;
  @ApiProperty({ example: '2026-11-21T10:00:00.000Z' }) created_at: string;

  static of(u: User): UserView {
    return { id: u.id, email: u.email, role: u.role, team_id: u.teamId, created_at: u.createdAt.toISOString() };
  }
}

export function meView(user: User | { id: number; email: string; role: string }, team: Team): MeView {
  return { user: { id: user.id, email: user.email, role: user.role }, team: { id: team.id, name: team.name, plan: team.plan } };
}
