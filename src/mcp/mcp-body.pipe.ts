import { Injectable, PipeTransform } from '@nestjs/common';
import { plainToInstance } from 'class-transformer';
import { validate } from 'class-validator';
import { ValidationFailed } from '../common/errors/errors';
import { inputProblems } from '../common/errors/input-problems';
import { toValidationItems } from '../common/errors/validation-items';
import type { McpTransport } from './entities/mcp-server.entity';
import { isPlainObject, TRANSPORTS, validateConfig } from './mcp-config';

/**
 * Validates an MCP body: the DTO's members as the global pipe does, plus the
 * transport-specific `config` (CONTRACT §7), so every problem of the request
 * is reported in one 422 (`["body","config","url"]` beside `["body","name"]`).
 * Used as `@Body(new McpBodyPipe(Dto)) body: Dto` with the parameter typed
 * loosely so the global pipe leaves it alone.
 */
@Injectable()
export class McpBodyPipe<T extends object> implements PipeTransform<unknown, Promise<T>> {
  constructor(private readonly dto: new () => T) {}

  async transform(value: unknown): Promise<T> {
    const body = value === undefined ? {} : value;
    if (!isPlainObject(body)) throw ValidationFailed.one(['body'], 'Input should be a valid dictionary or object', 'dict_type');
    // Too deep for class-transformer, NUL characters PostgreSQL cannot store, `__proto__` members.
    const problems = inputProblems(body, 'body');
    if (problems.unsafe) throw new ValidationFailed(problems.items);
    const instance = plainToInstance(this.dto, body);
    const errors = await validate(instance, {
      whitelist: true,
      forbidNonWhitelisted: true,
      forbidUnknownValues: false,
      validationError: { target: false, value: false },
    });
    const items = toValidationItems(errors, ['body']);
    // With an app_id the config is laid over the app's template first: the service checks the result.
    const { transport, config, app_id } = body as { transport?: unknown; config?: unknown; app_id?: unknown };
    if (app_id === undefined && isPlainObject(config) && TRANSPORTS.includes(transport as McpTransport)) {
      items.push(...validateConfig(transport as McpTransport, config));
    }
    // The DTO and validateConfig report NUL characters themselves: the generic item only where they did not.
    const reported = new Set(items.map((item) => JSON.stringify(item.loc)));
    items.push(...problems.items.filter((item) => !reported.has(JSON.stringify(item.loc))));
    if (items.length > 0) throw new ValidationFailed(items);
    return instance;
  }
}
