import { Module } from '@nestjs/common';
import { AdminUsersController } from './admin-users.controller';
import { AuthController } from './auth.controller';
import { TokensService } from './tokens.service';
import { UsersService } from './users.service';

@Module({
  controllers: [AuthController, AdminUsersController],
  providers: [TokensService, UsersService],
  exports: [TokensService, UsersService],
})
export class AuthModule {}
