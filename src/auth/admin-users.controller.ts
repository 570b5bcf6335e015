import { Body, Controller, Get, HttpCode, Post, Query, Res } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { Authenticated } from '../common/auth/decorators';
import { IntIdParam } from '../common/http/id-params';
import { ApiErrors } from '../common/http/openapi';
import { PaginationQuery, setTotalCount } from '../common/http/pagination';
import { CreatedUserView, CreateUserDto, UserView } from './dto/auth.dto';
import { UsersService } from './users.service';

@ApiTags('Admin')
@Authenticated({ admin: true })
@Controller('admin/users')
export class AdminUsersController {
  constructor(private readonly users: UsersService) {}

  @Post()
  @HttpCode(201)
  @ApiOperation({ summary: 'Create a user (in a new team unless team_id) and their first token' })
  @ApiCreatedResponse({ type: CreatedUserView })
  @ApiErrors(409, 422)
  async create(@Body() body: CreateUserDto, @Res({ passthrough: true }) res: Response): Promise<CreatedUserView> {
    const { user, token } = await this.users.create({ email: body.email, role: body.role, teamName: body.team_name, teamId: body.team_id });
    res.setHeader('Location', `/api/admin/users/${user.id}`);
    return { user_id: user.id, team_id: user.teamId, email: user.email, role: user.role, token };
  }

  @Get()
  @ApiOperation({ summary: 'List users' })
  @ApiOkResponse({ type: [UserView], headers: { 'X-Total-Count': { description: 'Total number of users', schema: { type: 'integer' } } } })
  @ApiErrors(422)
  async list(@Query() page: PaginationQuery, @Res({ passthrough: true }) res: Response): Promise<UserView[]> {
    const [users, total] = await this.users.list(page.limit, page.offset);
    setTotalCount(res, total);
    return users.map((u) => UserView.of(u));
  }

  @Get(':user_id')
  @ApiOperation({ summary: 'One user' })
  @ApiOkResponse({ type: UserView })
  @ApiErrors(404, 422)
  async get(@IntIdParam('user_id') id: number): Promise<UserView> {
    return UserView.of(await this.users.get(id));
  }
}
