import { Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import { Strategy } from 'passport-http-bearer';
import { TokensService } from '../../auth/tokens.service';
import type { AuthUser } from './auth-user';

@Injectable()
export class BearerStrategy extends PassportStrategy(Strategy, 'bearer') {
  constructor(private readonly tokens: TokensService) {
    super();
  }

  /** Returning false makes the guard answer 401 "Invalid or expired token". */
  async validate(token: string): Promise<AuthUser | false> {
    return (await this.tokens.authenticate(token)) ?? false;
  }
}
