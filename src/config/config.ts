import * as path from 'node:path';
import { z } from 'zod';

/**
 * Every setting of the service, read from the environment once at start.
 * Nothing else in the code reads `process.env` (STYLE.md habit 6).
 */

const int = (min: number, max = Number.MAX_SAFE_INTEGER) =>
  z
    .string()
    .trim()
    .regex(/^\d+$/, 'must be a whole number')
    .transform(Number)
    .pipe(z.number().int().min(min).max(max));

const bool = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'], { message: 'must be true or false' })
  .transform((v) => v === 'true' || v === '1' || v === 'yes');

const optionalString = z
  .string()
  .optional()
  .transform((v) => (v === undefined || v.trim() === '' ? undefined : v));

const url = (protocols: string[]) =>
  z
    .string()
    .trim()
    .refine((v) => {
      try {
        return protocols.includes(new URL(v).protocol);
      } catch {
        return false;
      }
    }, `must be a URL (${protocols.join(' or ')})`);

/** `price_123=Pro,price_456=Team` → Map(price id → plan name). */
const pricePlans = z
  .string()
  .optional()
  .transform((v, ctx) => {
    const map = new Map<string, string>();
    for (const pair of (v ?? '').split(',').map((s) => s.trim()).filter(Boolean)) {
      const [price, plan, ...rest] = pair.split('=').map((s) => s.trim());
      if (!price || !plan || rest.length > 0) {
        ctx.addIssue({ code: 'custom', message: `"${pair}" is not price_id=Plan` });
        return z.NEVER;
      }
      map.set(price, plan);
    }
    return map;
  });

export const USAGE_COUNTERS = ['storage_bytes', 'files_uploaded', 'mcp_connection_tests'] as const;
export type UsageCounter = (typeof USAGE_COUNTERS)[number];
export type PlanLimits = Record<UsageCounter, number | null>;

const planLimits = z
  .string()
  .optional()
  .transform((v, ctx) => {
    if (v === undefined || v.trim() === '') return {};
    let parsed: unknown;
    try {
      parsed = JSON.parse(v);
    } catch {
      ctx.addIssue({ code: 'custom', message: 'must be JSON' });
      return z.NEVER;
    }
    const shape = z.record(z.string(), z.record(z.string(), z.number().int().min(0).nullable()));
    const result = shape.safeParse(parsed);
    if (!result.success) {
      ctx.addIssue({ code: 'custom', message: 'must be {"<Plan>":{"<counter>":<whole number>|null}}' });
      return z.NEVER;
    }
    for (const [plan, limits] of Object.entries(result.data)) {
      const unknown = Object.keys(limits).filter((key) => !(USAGE_COUNTERS as readonly string[]).includes(key));
      if (unknown.length > 0) {
        ctx.addIssue({ code: 'custom', message: `plan ${plan}: unknown usage counter(s) ${unknown.join(', ')}` });
        return z.NEVER;
      }
    }
    return result.data as Record<string, Partial<PlanLimits>>;
  });

const list = z
  .string()
  .optional()
  .transform((v) => (v ?? '').split(',').map((s) => s.trim()).filter(Boolean));

const schema = z.object({
  NODE_ENV: z.string().default('production'),
  PORT: int(0, 65535).default(3000),
  HOST: z.string().trim().min(1).default('0.0.0.0'),
  DATABASE_URL: optionalString.pipe(url(['postgres:', 'postgresql:']).optional()),
  DATABASE_POOL_SIZE: int(1, 1000).default(10),
  DATABASE_CONNECT_TIMEOUT_MS: int(100).default(2000),
  DATABASE_STATEMENT_TIMEOUT_MS: int(0).default(30000),
  DATA_DIR: z.string().trim().min(1).default('./data'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  BOOTSTRAP_ADMIN_TOKEN: optionalString.pipe(z.string().min(32, 'must be at least 32 characters').optional()),
  RATE_LIMIT_PER_MINUTE: int(0).default(1200),
  METRICS_TOKEN: optionalString,
  SHUTDOWN_TIMEOUT_MS: int(0).default(10000),
  TRUST_PROXY: optionalString,

  PAYMENT_SECRET_KEY: optionalString,
  PAYMENT_WEBHOOK_SECRET: optionalString,
  PAYMENT_API_BASE: optionalString.pipe(url(['http:', 'https:']).optional()),
  PAYMENT_PRICE_PLANS: pricePlans,
  PLAN_LIMITS: planLimits,

  MAX_UPLOAD_FILE_BYTES: int(1).default(100 * 1024 * 1024),
  MAX_UPLOAD_FILES: int(1, 10000).default(20),
  STORAGE_DRIVER: z.enum(['local', 's3']).default('local'),
  S3_BUCKET: optionalString,
  S3_REGION: z.string().trim().min(1).default('us-east-1'),
  S3_ENDPOINT: optionalString.pipe(url(['http:', 'https:']).optional()),
  S3_ACCESS_KEY_ID: optionalString,
  S3_SECRET_ACCESS_KEY: optionalString,

  MCP_TEST_TIMEOUT_MS: int(100, 600000).default(10000),
  MCP_ALLOW_PRIVATE_NETWORKS: bool.default(false),
  MCP_STDIO_ENABLED: bool.default(false),
  MCP_STDIO_ALLOWED_COMMANDS: list,
  MCP_MAX_TESTS_IN_FLIGHT: int(1, 1000).default(3),
  MCP_STDIO_PATH: optionalString,
});

export type Env = z.input<typeof schema>;

export interface AppConfig {
  env: string;
  port: number;
  host: string;
  database: {
    /** Unset: the embedded PostgreSQL (PGlite) under `dataDir` is used. */
    url?: string;
    poolSize: number;
    connectTimeoutMs: number;
    statementTimeoutMs: number;
  };
  dataDir: string;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  bootstrapAdminToken?: string;
  rateLimitPerMinute: number;
  metricsToken?: string;
  shutdownTimeoutMs: number;
  trustProxy?: string;
  payment: {
    secretKey?: string;
    webhookSecret?: string;
    apiBase?: string;
    pricePlans: Map<string, string>;
    planLimits: Record<string, Partial<PlanLimits>>;
  };
  uploads: { maxFileBytes: number; maxFiles: number };
  storage: {
    driver: 'local' | 's3';
    s3: { bucket?: string; region: string; endpoint?: string; accessKeyId?: string; secretAccessKey?: string };
  };
  mcp: {
    testTimeoutMs: number;
    allowPrivateNetworks: boolean;
    stdioEnabled: boolean;
    stdioAllowedCommands: string[];
    maxTestsInFlight: number;
    /** PATH of stdio test processes (their only variable besides the config's env); default: the service's PATH. */
    stdioPath: string;
  };
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/** Parses and validates the environment; throws ConfigError naming every bad variable. */
export function loadConfig(env: Record<string, string | undefined> = process.env): AppConfig {
  const result = schema.safeParse(env);
  if (!result.success) {
    throw new ConfigError(
      result.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message} (got ${JSON.stringify(env[String(issue.path[0])] ?? null)})`),
    );
  }
  const e = result.data;
  const problems: string[] = [];
  if (e.STORAGE_DRIVER === 's3' && !e.S3_BUCKET) problems.push('S3_BUCKET: required when STORAGE_DRIVER=s3');
  if (problems.length > 0) throw new ConfigError(problems);
  return {
    env: e.NODE_ENV,
    port: e.PORT,
    host: e.HOST,
    database: {
      url: e.DATABASE_URL,
      poolSize: e.DATABASE_POOL_SIZE,
      connectTimeoutMs: e.DATABASE_CONNECT_TIMEOUT_MS,
      statementTimeoutMs: e.DATABASE_STATEMENT_TIMEOUT_MS,
    },
    dataDir: path.resolve(e.DATA_DIR),
    logLevel: e.LOG_LEVEL,
    bootstrapAdminToken: e.BOOTSTRAP_ADMIN_TOKEN,
    rateLimitPerMinute: e.RATE_LIMIT_PER_MINUTE,
    metricsToken: e.METRICS_TOKEN,
    shutdownTimeoutMs: e.SHUTDOWN_TIMEOUT_MS,
    trustProxy: e.TRUST_PROXY,
    payment: {
      secretKey: e.PAYMENT_SECRET_KEY,
      webhookSecret: e.PAYMENT_WEBHOOK_SECRET,
      apiBase: e.PAYMENT_API_BASE,
      pricePlans: e.PAYMENT_PRICE_PLANS,
      planLimits: e.PLAN_LIMITS,
    },
    uploads: { maxFileBytes: e.MAX_UPLOAD_FILE_BYTES, maxFiles: e.MAX_UPLOAD_FILES },
    storage: {
      driver: e.STORAGE_DRIVER,
      s3: {
        bucket: e.S3_BUCKET,
        region: e.S3_REGION,
        endpoint: e.S3_ENDPOINT,
        accessKeyId: e.S3_ACCESS_KEY_ID,
        secretAccessKey: e.S3_SECRET_ACCESS_KEY,
      },
    },
    mcp: {
      testTimeoutMs: e.MCP_TEST_TIMEOUT_MS,
      allowPrivateNetworks: e.MCP_ALLOW_PRIVATE_NETWORKS,
      stdioEnabled: e.MCP_STDIO_ENABLED,
      stdioAllowedCommands: e.MCP_STDIO_ALLOWED_COMMANDS,
      maxTestsInFlight: e.MCP_MAX_TESTS_IN_FLIGHT,
      stdioPath: e.MCP_STDIO_PATH ?? env.PATH ?? process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin',
    },
  };
}

/** Injection token for the validated AppConfig. */
export const APP_CONFIG = Symbol('APP_CONFIG');
