import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiResponse } from '@nestjs/swagger';

/** `{"detail": "..."}`: every error except validation. */
export class ErrorBody {
  @ApiProperty({ example: 'MCP server not found' })
  detail: string;
}

export class ValidationErrorItem {
  @ApiProperty({
    description: 'Location of the faulty input: body, query, path, header or form, then the field path',
    type: 'array',
    items: { oneOf: [{ type: 'string' }, { type: 'integer' }] },
    example: ['body', 'config', 'url'],
  })
  loc: (string | number)[];

  @ApiProperty({ example: 'Field required' })
  msg: string;

  @ApiProperty({
    example: 'missing',
    enum: [
      'missing', 'string_type', 'int_parsing', 'bool_type', 'dict_type', 'list_type', 'uuid_parsing', 'enum',
      'string_too_long', 'string_too_short', 'too_long', 'extra_forbidden', 'json_invalid', 'value_error',
    ],
  })
  type: string;
}

/** The 422 body: `{"detail": [{loc, msg, type}, ...]}`, every problem of the request at once. */
export class ValidationErrorBody {
  @ApiProperty({ type: [ValidationErrorItem] })
  detail: ValidationErrorItem[];
}

export class DeletedIntBody {
  @ApiProperty({ example: 1 })
  id: number;

  @ApiProperty({ example: true })
  deleted: boolean;
}

export class DeletedUuidBody {
  @ApiProperty({ example: '3f0b5c9e-8a3b-4c1e-9a57-2f6f9d1b7e21', format: 'uuid' })
  id: string;

  @ApiProperty({ example: true })
  deleted: boolean;
}

const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: 'Bad request',
  402: 'Plan quota exceeded (`quota`, `limit`, `used` say which)',
  403: 'Forbidden',
  404: 'Not found, or owned by another user',
  409: 'Conflict',
  413: 'Upload too large or too many files',
  422: 'Invalid input: every problem at once',
  503: 'Service unavailable',
};

/** Documents the error responses a route can give, in the contract's bodies. */
export const ApiErrors = (...statuses: (400 | 402 | 403 | 404 | 409 | 413 | 422 | 503)[]) =>
  applyDecorators(
    ...statuses.map((status) =>
      ApiResponse({ status, description: ERROR_DESCRIPTIONS[status], type: status === 422 ? ValidationErrorBody : ErrorBody }),
    ),
  );
