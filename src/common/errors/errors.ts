/**
 * Errors services throw. The global filter (api-exception.filter.ts) is the
 * only place that turns them into HTTP statuses and CONTRACT §1 bodies.
 */

export type ValidationLocation = 'body' | 'query' | 'path' | 'header' | 'form' | 'canvas';

export type ValidationErrorType =
  | 'missing'
  | 'string_type'
  | 'int_parsing'
  | 'bool_type'
  | 'dict_type'
  | 'list_type'
  | 'uuid_parsing'
  | 'enum'
  | 'string_too_long'
  | 'string_too_short'
  | 'too_long'
  | 'extra_forbidden'
  | 'json_invalid'
  | 'value_error';

export interface ValidationItem {
  loc: (string | number)[];
  msg: string;
  type: ValidationErrorType;
}

export abstract class ApiError extends Error {
  abstract readonly status: number;
  /** Extra members of the body besides `detail` (e.g. a quota's limit). */
  readonly extra: Record<string, unknown> = {};
}

/** 422 with every problem of the request. */
export class ValidationFailed extends ApiError {
  readonly status = 422;
  constructor(readonly items: ValidationItem[]) {
    super(items.map((i) => `${i.loc.join('.')}: ${i.msg}`).join('; '));
  }

  static one(loc: (string | number)[], msg: string, type: ValidationErrorType): ValidationFailed {
    return new ValidationFailed([{ loc, msg, type }]);
  }
}

/** 404 `<Thing> not found`, also for another user's resource (never reveal it exists). */
export class NotFound extends ApiError {
  readonly status = 404;
  constructor(thing: string) {
    super(`${thing} not found`);
  }
}

export class Conflict extends ApiError {
  readonly status = 409;
}

export class Forbidden extends ApiError {
  readonly status = 403;
  constructor() {
    super('Forbidden');
  }
}

export class Unauthorized extends ApiError {
  readonly status = 401;
}

export class PayloadTooLarge extends ApiError {
  readonly status = 413;
}

export class TooManyRequests extends ApiError {
  readonly status = 429;
  constructor(readonly retryAfterSeconds: number) {
    super('Too many requests');
  }
}

export class ServiceUnavailable extends ApiError {
  readonly status = 503;
  constructor(detail = 'Service unavailable') {
    super(detail);
  }
}

/** 400 with a fixed detail (the webhook's `Invalid payload` / `Invalid signature`). */
export class BadRequest extends ApiError {
  readonly status = 400;
}

/** 402: a plan limit would be exceeded. `used` is the counter before the refused request. */
export class QuotaExceeded extends ApiError {
  readonly status = 402;
  override readonly extra: Record<string, unknown>;
  constructor(quota: string, limit: number, used: number, detail?: string) {
    super(detail ?? `Plan limit reached for ${quota}: ${used} of ${limit} used`);
    this.extra = { quota, limit, used };
  }
}
