import { Module } from '@nestjs/common';
import { PassportModule } from '@nestjs/passport';
import { BearerStrategy } from '../common/auth/bearer.strategy';
import { AdminUsersController } from './admin-users.controller';
import { AuthController } from './auth.controller';
import { TokensService } from './tokens.service';
import { UsersService } from './users.service';

@Module({
  imports: [PassportModule],
  controllers: [AuthController, AdminUsersController],
  providers: [TokensService, UsersService, BearerStrategy],
  exports: [TokensService, UsersService],
})
export class AuthModule {}
