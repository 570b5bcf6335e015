import { Injectable, Param, PipeTransform } from '@nestjs/common';
import { ValidationFailed } from '../errors/errors';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;
const MAX_INT = 2_147_483_647;

@Injectable()
class ParseIntIdPipe implements PipeTransform<string, number> {
  constructor(private readonly name: string) {}
  transform(value: string): number {
    if (!/^\d{1,10}$/.test(value) || Number(value) > MAX_INT || Number(value) < 1) {
      throw ValidationFailed.one(['path', this.name], 'Input should be a valid integer id', 'int_parsing');
    }
    return Number(value);
  }
}

@Injectable()
class ParseUuidPipe implements PipeTransform<string, string> {
  constructor(private readonly name: string) {}
  transform(value: string): string {
    if (!UUID.test(value)) throw ValidationFailed.one(['path', this.name], 'Input should be a valid UUID', 'uuid_parsing');
    return value.toLowerCase();
  }
}

/** An integer path id (users, teams, MCP servers); anything else answers 422 `int_parsing`. */
export const IntIdParam = (name: string) => Param(name, new ParseIntIdPipe(name));

/** A UUID path id (agents, workforces, files, memory entries); anything else answers 422 `uuid_parsing`. */
export const UuidParam = (name: string) => Param(name, new ParseUuidPipe(name));
