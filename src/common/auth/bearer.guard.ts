import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request, Response } from 'express';
import passport from 'passport';
import { Strategy as BearerStrategy } from 'passport-http-bearer';
import { TokensService } from '../../auth/tokens.service';
import { Forbidden, Unauthorized } from '../errors/errors';
import type { AuthUser } from './auth-user';
import { IS_PUBLIC, REQUIRES_ADMIN } from './decorators';

const BEARER = /^Bearer +([A-Za-z0-9._~+/=-]+) *$/i;

type Verify = (token: string, done: (error: unknown, user?: AuthUser | false) => void) => void;

/**
 * The global guard (APP_GUARD): every route needs `Authorization: Bearer
 * <token>` unless marked @Public().
 *
 * - Only the header counts: passport-http-bearer would also read `access_token`
 *   from the query or body, which leaks tokens into logs, so requests without
 *   the header are refused before it runs.
 * - The guard owns its strategy instance instead of registering one by name in
 *   passport's process-wide registry (what @nestjs/passport does): with two
 *   apps in one process (tests of several instances), the registry held the
 *   last app's strategy and the first app authenticated against a closed pool.
 */
@Injectable()
export class BearerAuthGuard implements CanActivate {
  private readonly strategy: BearerStrategy<Verify>;

  constructor(
    private readonly reflector: Reflector,
    tokens: TokensService,
  ) {
    this.strategy = new BearerStrategy((token, done) => {
      tokens.authenticate(token).then(
        (user) => done(null, user ?? false),
        (err: unknown) => done(err),
      );
    });
  }

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const targets = [context.getHandler(), context.getClass()];
    if (this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, targets)) return true;
    const http = context.switchToHttp();
    const req = http.getRequest<Request>();
    const header = req.headers.authorization;
    if (typeof header !== 'string' || !BEARER.test(header)) throw new Unauthorized('Not authenticated');
    const user = await new Promise<AuthUser | false>((resolve, reject) => {
      // passport attaches this request's callbacks to the instance it is given (it
      // derives one per request only for named strategies), so derive one here:
      // sharing the instance let concurrent requests answer each other's callbacks.
      const perRequest = Object.create(this.strategy) as BearerStrategy<Verify>;
      passport.authenticate(perRequest, { session: false }, (err: unknown, found: AuthUser | false) => (err ? reject(err) : resolve(found)))(
        req,
        http.getResponse<Response>(),
        reject,
      );
    });
    if (!user) throw new Unauthorized('Invalid or expired token');
    req.user = user;
    if (this.reflector.getAllAndOverride<boolean>(REQUIRES_ADMIN, targets) && user.role !== 'admin') throw new Forbidden();
    return true;
  }
}
