import type { ValidationError } from 'class-validator';
import type { ValidationErrorType, ValidationItem } from './errors';

/**
 * class-validator constraint names → CONTRACT §1 error types. The first
 * constraint found in this order wins, so a missing field reports `missing`
 * and not also "must be a string".
 */
const TYPE_BY_CONSTRAINT: [string, ValidationErrorType][] = [
  ['whitelistValidation', 'extra_forbidden'],
  ['isDefined', 'missing'],
  ['isNotEmptyObject', 'dict_type'],
  ['isString', 'string_type'],
  ['isInt', 'int_parsing'],
  ['isNumber', 'int_parsing'],
  ['isBoolean', 'bool_type'],
  ['isArray', 'list_type'],
  ['isObject', 'dict_type'],
  ['nestedValidation', 'dict_type'],
  // class-validator names the @IsUUID() constraint 'isUuid'.
  ['isUuid', 'uuid_parsing'],
  ['isUUID', 'uuid_parsing'],
  ['isEnum', 'enum'],
  ['isIn', 'enum'],
  ['maxLength', 'string_too_long'],
  ['minLength', 'string_too_short'],
  ['isNotEmpty', 'string_too_short'],
  ['arrayMaxSize', 'too_long'],
];

function itemFor(error: ValidationError, loc: (string | number)[]): ValidationItem | undefined {
  const constraints = error.constraints ?? {};
  const names = Object.keys(constraints);
  if (names.length === 0) return undefined;
  for (const [name, type] of TYPE_BY_CONSTRAINT) {
    if (name in constraints) {
      const msg = type === 'missing' ? 'Field required' : type === 'extra_forbidden' ? 'Extra inputs are not permitted' : constraints[name];
      return { loc, msg, type };
    }
  }
  return { loc, msg: constraints[names[0]], type: 'value_error' };
}

const isArrayIndex = (property: string): boolean => /^(0|[1-9]\d{0,9})$/.test(property) && Number(property) < 2 ** 32 - 1;

/** Flattens class-validator's tree into CONTRACT §1 items under `prefix` (e.g. `["body"]`). */
export function toValidationItems(errors: ValidationError[], prefix: (string | number)[]): ValidationItem[] {
  const items: ValidationItem[] = [];
  const walk = (list: ValidationError[], parent: (string | number)[]) => {
    for (const error of list) {
      // Array indexes become numbers; a member name of digits that is no index (e.g. "007", 20 digits) stays as sent.
      const key = isArrayIndex(error.property) ? Number(error.property) : error.property;
      const loc = [...parent, key];
      const item = itemFor(error, loc);
      if (item) items.push(item);
      if (error.children?.length) walk(error.children, loc);
    }
  };
  walk(errors, prefix);
  return items;
}
