import { applyDecorators, createParamDecorator, ExecutionContext, SetMetadata } from '@nestjs/common';
import { ApiBearerAuth, ApiForbiddenResponse, ApiSecurity, ApiTooManyRequestsResponse, ApiUnauthorizedResponse } from '@nestjs/swagger';
import { SkipThrottle } from '@nestjs/throttler';
import { ErrorBody } from '../http/openapi';
import type { AuthUser } from './auth-user';

export const IS_PUBLIC = 'auth:public';
export const REQUIRES_ADMIN = 'auth:admin';

/**
 * Opens a route to callers without a token (health, docs, the payment webhook).
 * Every other route needs a bearer token: the guard denies by default.
 */
export const Public = (options: { throttle?: boolean } = {}) =>
  applyDecorators(SetMetadata(IS_PUBLIC, true), ApiSecurity({}), ...(options.throttle ? [] : [SkipThrottle()]));

/**
 * A bearer-protected controller or route, documented as such; `admin: true`
 * also requires the admin role (403 otherwise). Enforcement and OpenAPI come
 * from this one decorator so they cannot drift.
 */
export const Authenticated = (options: { admin?: boolean } = {}) =>
  applyDecorators(
    ApiBearerAuth('bearer'),
    ApiUnauthorizedResponse({ description: 'Missing, malformed, unknown, revoked or expired token', type: ErrorBody }),
    ApiTooManyRequestsResponse({ description: 'Rate limited (`Retry-After` says when to retry)', type: ErrorBody }),
    ...(options.admin
      ? [SetMetadata(REQUIRES_ADMIN, true), ApiForbiddenResponse({ description: 'Authenticated but not an admin', type: ErrorBody })]
      : []),
  );

/** The authenticated caller. */
export const CurrentUser = createParamDecorator((_data: unknown, ctx: ExecutionContext): AuthUser => {
  return ctx.switchToHttp().getRequest<{ user: AuthUser }>().user;
});
