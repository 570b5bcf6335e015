import { Body, Controller, Delete, Get, HttpCode, Post, Query, Res } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { InjectDataSource } from '@nestjs/typeorm';
import type { Response } from 'express';
import { DataSource } from 'typeorm';
import type { AuthUser } from '../common/auth/auth-user';
import { Authenticated, CurrentUser } from '../common/auth/decorators';
import { IntIdParam } from '../common/http/id-params';
import { ApiErrors } from '../common/http/openapi';
import { PaginationQuery, setTotalCount } from '../common/http/pagination';
import { Team } from '../teams/entities/team.entity';
import { CreatedTokenView, CreateTokenDto, MeView, meView, RevokedTokenView, TokenView } from './dto/auth.dto';
import { TokensService } from './tokens.service';

@ApiTags('Auth')
@Authenticated()
@Controller('auth')
export class AuthController {
  constructor(
    private readonly tokens: TokensService,
    @InjectDataSource() private readonly dataSource: DataSource,
  ) {}

  @Get('me')
  @ApiOperation({ summary: 'The caller and their team' })
  @ApiOkResponse({ type: MeView })
  async me(@CurrentUser() user: AuthUser): Promise<MeView> {
    const team = await this.dataSource.getRepository(Team).findOneByOrFail({ id: user.teamId });
    return meView(user, team);
  }

  @Post('tokens')
  @HttpCode(201)
  @ApiOperation({ summary: 'Create an API token for the caller (its value is shown only here)' })
  @ApiCreatedResponse({ type: CreatedTokenView })
  @ApiErrors(422)
  async create(@CurrentUser() user: AuthUser, @Body() body: CreateTokenDto, @Res({ passthrough: true }) res: Response): Promise<CreatedTokenView> {
    const { token, value } = await this.tokens.issue(user.id, body.name, { expiresInDays: body.expires_in_days });
    res.setHeader('Location', `/api/auth/tokens/${token.id}`);
    return { id: token.id, name: token.name, token: value, created_at: token.createdAt.toISOString(), expires_at: token.expiresAt?.toISOString() ?? null };
  }

  @Get('tokens')
  @ApiOperation({ summary: "The caller's tokens, oldest first (never their values)" })
  @ApiOkResponse({ type: [TokenView], headers: { 'X-Total-Count': { description: 'Total number of tokens', schema: { type: 'integer' } } } })
  @ApiErrors(422)
  async list(@CurrentUser() user: AuthUser, @Query() page: PaginationQuery, @Res({ passthrough: true }) res: Response): Promise<TokenView[]> {
    const [tokens, total] = await this.tokens.list(user.id, page);
    setTotalCount(res, total);
    return tokens.map((t) => TokenView.of(t));
  }

  @Delete('tokens/:token_id')
  @ApiOperation({ summary: 'Revoke one of the caller’s tokens' })
  @ApiOkResponse({ type: RevokedTokenView })
  @ApiErrors(404, 422)
  async revoke(@CurrentUser() user: AuthUser, @IntIdParam('token_id') id: number): Promise<RevokedTokenView> {
    await this.tokens.revoke(user.id, id);
    return { id, revoked: true };
  }
}
