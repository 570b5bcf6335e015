import type { INestApplicationContext } from '@nestjs/common';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { DataSource } from 'typeorm';
import { TokensService } from '../auth/tokens.service';
import { UsersService } from '../auth/users.service';
import { TokenView } from '../auth/dto/auth.dto';
import { WebhooksService } from '../webhooks/webhooks.service';

export class UsageError extends Error {}

export type Flags = Record<string, string | true>;

export interface Command {
  usage: string;
  run(ctx: INestApplicationContext, flags: Flags): Promise<unknown>;
}

function str(flags: Flags, name: string, required: true): string;
function str(flags: Flags, name: string, required?: false): string | undefined;
function str(flags: Flags, name: string, required = false): string | undefined {
  const value = flags[name];
  if (value === undefined && required) throw new UsageError(`--${name} is required`);
  if (value === true) throw new UsageError(`--${name} needs a value`);
  return value;
}

function int(flags: Flags, name: string, required: true): number;
function int(flags: Flags, name: string, required?: false): number | undefined;
function int(flags: Flags, name: string, required = false): number | undefined {
  const value = required ? str(flags, name, true) : str(flags, name);
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value) || Number(value) < 1) throw new UsageError(`--${name} must be a positive whole number`);
  return Number(value);
}

export const COMMANDS: Record<string, Command> = {
  'user:create': {
    usage: 'user:create --email <email> [--team-name <name> | --team-id <id>] [--role admin|member]',
    async run(ctx, flags) {
      const role = str(flags, 'role') ?? 'member';
      if (role !== 'admin' && role !== 'member') throw new UsageError('--role must be admin or member');
      const email = str(flags, 'email', true);
      if (!/^[^@\s]+@[^@\s]+$/.test(email)) throw new UsageError('--email must be an email address');
      if (flags['team-name'] !== undefined && flags['team-id'] !== undefined) throw new UsageError('give --team-name or --team-id, not both');
      const { user, token } = await ctx.get(UsersService).create({ email, role, teamName: str(flags, 'team-name'), teamId: int(flags, 'team-id') });
      return { user_id: user.id, team_id: user.teamId, email: user.email, role: user.role, token };
    },
  },
  'token:create': {
    usage: 'token:create --email <email> [--name <name>] [--expires-in-days <days>]',
    async run(ctx, flags) {
      const user = await ctx.get(UsersService).getByEmail(str(flags, 'email', true));
      const { token, value } = await ctx.get(TokensService).issue(user.id, str(flags, 'name') ?? 'cli', { expiresInDays: int(flags, 'expires-in-days') });
      return { token: value, id: token.id };
    },
  },
  'token:revoke': {
    usage: 'token:revoke --id <token id>',
    async run(ctx, flags) {
      const token = await ctx.get(TokensService).revoke(undefined, int(flags, 'id', true));
      return { id: token.id, revoked: true };
    },
  },
  'token:list': {
    usage: 'token:list --email <email>',
    async run(ctx, flags) {
      const user = await ctx.get(UsersService).getByEmail(str(flags, 'email', true));
      const [tokens] = await ctx.get(TokensService).list(user.id);
      return tokens.map((t) => TokenView.of(t));
    },
  },
  'webhooks:failures': {
    usage: 'webhooks:failures: payment webhook deliveries whose handler failed, newest first, with their payloads',
    run: (ctx) => ctx.get(WebhooksService).listFailures(),
  },
  'webhooks:replay': {
    usage: 'webhooks:replay --id <event id>: process a kept failure again, exactly once ({"status":"ok"} or "already_processed")',
    run: (ctx, flags) => ctx.get(WebhooksService).replay(str(flags, 'id', true)),
  },
  'migration:run': {
    usage: 'migration:run (pending migrations are applied when the CLI opens the database)',
    async run(ctx) {
      const ds = ctx.get(DataSource);
      const applied: { name: string }[] = await ds.query(`SELECT name FROM migrations ORDER BY id`);
      return { applied: applied.map((m) => m.name), pending: await ds.showMigrations() };
    },
  },
  'migration:generate': {
    usage: 'migration:generate --name <Name>: writes migrations/<timestamp>-<Name>.ts from the difference between the entities and the database',
    async run(ctx, flags) {
      const name = str(flags, 'name', true);
      if (!/^[A-Z][A-Za-z0-9]*$/.test(name)) throw new UsageError('--name must be PascalCase letters and digits');
      const sql = await ctx.get(DataSource).driver.createSchemaBuilder().log();
      if (sql.upQueries.length === 0) return { generated: null, message: 'No changes: the database matches the entities' };
      const timestamp = Date.now();
      const q = (query: { query: string; parameters?: unknown[] }) =>
        `    await q.query(${JSON.stringify(query.query)}${query.parameters?.length ? `, ${JSON.stringify(query.parameters)}` : ''});`;
      const file = path.resolve('migrations', `${timestamp}-${name}.ts`);
      fs.writeFileSync(
        file,
        `import { MigrationInterface, QueryRunner } from 'typeorm';\n\n` +
          `export class ${name}${timestamp} implements MigrationInterface {\n  name = '${name}${timestamp}';\n\n` +
          `  async up(q: QueryRunner): Promise<void> {\n${sql.upQueries.map(q).join('\n')}\n  }\n\n` +
          `  async down(q: QueryRunner): Promise<void> {\n${sql.downQueries.reverse().map(q).join('\n')}\n  }\n}\n`,
      );
      return { generated: path.relative(process.cwd(), file) };
    },
  },
};
