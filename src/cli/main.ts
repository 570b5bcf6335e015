import 'reflect-metadata';
import { LoggerService } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { config as loadDotenv } from 'dotenv';
import { ApiError } from '../common/errors/errors';
import { ConfigError, loadConfig } from '../config/config';
import { DatabaseInUseError } from '../database/embedded-postgres';
import { CliModule } from './cli.module';
import { COMMANDS, Flags, UsageError } from './commands';
import { WebhookHandlerFailed } from '../webhooks/processed-events.service';

/**
 * `npm run cli -- <command> [--flag value ...]`. Prints exactly one line of
 * JSON on stdout; logs and errors go to stderr; exits non-zero on failure.
 */

/** Logs to stderr only, so stdout carries nothing but the command's JSON. */
class StderrLogger implements LoggerService {
  /** Nest's start-up chatter is dropped: only warnings (the bootstrap token) and errors are shown. */
  log() {}
  warn(message: unknown) {
    this.write('warn', message);
  }
  error(message: unknown) {
    this.write('error', message);
  }
  private write(level: string, message: unknown) {
    process.stderr.write(`${JSON.stringify({ level, msg: typeof message === 'string' ? message : String(message) })}\n`);
  }
}

export function parseFlags(args: string[]): Flags {
  const flags: Flags = {};
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (!arg.startsWith('--')) throw new UsageError(`unexpected argument "${arg}"`);
    const eq = arg.indexOf('=');
    if (eq > 2) {
      flags[arg.slice(2, eq)] = arg.slice(eq + 1);
    } else if (i + 1 < args.length && !args[i + 1].startsWith('--')) {
      flags[arg.slice(2)] = args[++i];
    } else {
      flags[arg.slice(2)] = true;
    }
  }
  return flags;
}

function usage(): string {
  return `Usage: npm run cli -- <command> [flags]\nCommands:\n${Object.values(COMMANDS)
    .map((c) => `  ${c.usage}`)
    .join('\n')}`;
}

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  const command = name ? COMMANDS[name] : undefined;
  if (!command) {
    process.stderr.write(`${name ? `Unknown command "${name}"\n` : ''}${usage()}\n`);
    return 2;
  }
  const flags = parseFlags(rest);
  loadDotenv({ quiet: true });
  const config = loadConfig();
  const ctx = await NestFactory.createApplicationContext(CliModule.forRoot(config), { logger: new StderrLogger(), abortOnError: false });
  try {
    const result = await command.run(ctx, flags);
    process.stdout.write(`${JSON.stringify(result)}\n`);
    return 0;
  } finally {
    await ctx.close();
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    if (err instanceof UsageError) process.stderr.write(`Error: ${err.message}\n${usage()}\n`);
    else if (err instanceof DatabaseInUseError || err instanceof ConfigError) process.stderr.write(`Error: ${err.message}\n`);
    else if (err instanceof WebhookHandlerFailed) process.stderr.write(`Error: ${err.message}: ${err.reason}\n`);
    else if (err instanceof ApiError) process.stderr.write(`Error: ${err.message}\n`);
    else process.stderr.write(`Error: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  },
);
