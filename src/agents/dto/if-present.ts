import { ValidateIf } from 'class-validator';

/**
 * Optional, but not nullable: unlike `@IsOptional()`, which skips every check
 * for `null` too, a member sent as `null` is still validated (and refused by
 * `@IsString()` etc.), so a PATCH cannot null a NOT NULL column.
 */
export const IfPresent = () => ValidateIf((_object: object, value: unknown) => value !== undefined);
