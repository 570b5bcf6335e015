import { ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AuthGuard } from '@nestjs/passport';
import type { Request } from 'express';
import { Forbidden, Unauthorized } from '../errors/errors';
import type { AuthUser } from './auth-user';
import { IS_PUBLIC, REQUIRES_ADMIN } from './decorators';

const BEARER = /^Bearer +([A-Za-z0-9._~+/=-]+) *$/i;

/**
 * The global guard (APP_GUARD): every route needs `Authorization: Bearer
 * <token>` unless marked @Public(). Only the header counts: passport-http-bearer
 * would also read `access_token` from the query or body, which leaks tokens
 * into logs, so requests without the header are refused before it runs.
 */
@Injectable()
export class BearerAuthGuard extends AuthGuard('bearer') {
  constructor(private readonly reflector: Reflector) {
    super();
  }

  override async canActivate(context: ExecutionContext): Promise<boolean> {
    const targets = [context.getHandler(), context.getClass()];
    if (this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, targets)) return true;
    const req = context.switchToHttp().getRequest<Request>();
    const header = req.headers.authorization;
    if (typeof header !== 'string' || !BEARER.test(header)) throw new Unauthorized('Not authenticated');
    await (super.canActivate(context) as Promise<boolean>);
    const user = req.user as AuthUser;
    if (this.reflector.getAllAndOverride<boolean>(REQUIRES_ADMIN, targets) && user.role !== 'admin') throw new Forbidden();
    return true;
  }

  override handleRequest<TUser = AuthUser>(err: unknown, user: TUser | false): TUser {
    if (err) throw err;
    if (!user) throw new Unauthorized('Invalid or expired token');
    return user;
  }
}
