import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { AuthUser } from '../common/auth/auth-user';
import { Authenticated, CurrentUser } from '../common/auth/decorators';
import { TeamView } from './dto/team.dto';
import { TeamsService } from './teams.service';

@ApiTags('Team')
@Authenticated()
@Controller('team')
export class TeamsController {
  constructor(private readonly teams: TeamsService) {}

  @Get()
  @ApiOperation({ summary: "The caller's team: plan, subscription, billing period, usage and plan limits" })
  @ApiOkResponse({ type: TeamView })
  get(@CurrentUser() user: AuthUser): Promise<TeamView> {
    return this.teams.view(user.teamId);
  }
}
