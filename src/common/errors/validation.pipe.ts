import { ArgumentMetadata, Injectable, PipeTransform } from '@nestjs/common';
import { plainToInstance } from 'class-transformer';
import { validate } from 'class-validator';
import { ValidationFailed, ValidationLocation } from './errors';
import { inputProblems } from './input-problems';
import { toValidationItems } from './validation-items';

const PRIMITIVES: unknown[] = [String, Boolean, Number, Array, Object, Buffer];

/**
 * The global validation pipe: DTO classes are validated with class-validator
 * (unknown body members rejected) and every problem is reported at once in
 * CONTRACT §1's 422 body, `loc` starting with body / query / path.
 */
@Injectable()
export class RequestValidationPipe implements PipeTransform {
  async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    const { metatype, type } = metadata;
    if (!metatype || PRIMITIVES.includes(metatype) || type === 'custom') return value;
    const location: ValidationLocation = type === 'param' ? 'path' : type;
    if (type === 'body' && value === undefined) value = {};
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      throw ValidationFailed.one([location], 'Input should be a valid dictionary or object', 'dict_type');
    }
    const problems = inputProblems(value, location);
    if (problems.unsafe) throw new ValidationFailed(problems.items);
    const instance = plainToInstance(metatype as new () => object, value) as object;
    const errors = await validate(instance, {
      whitelist: true,
      // Unknown body members are an error (CONTRACT §1); unknown query parameters are ignored.
      forbidNonWhitelisted: type === 'body',
      forbidUnknownValues: false,
      validationError: { target: false, value: false },
    });
    if (errors.length > 0 || problems.items.length > 0) throw new ValidationFailed([...toValidationItems(errors, [location]), ...problems.items]);
    return instance;
  }
}
