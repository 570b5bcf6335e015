import type { ValidationItem } from '../common/errors/errors';
import type { McpTransport } from './entities/mcp-server.entity';

/**
 * The `config` of an MCP server per transport (CONTRACT §7), its validation
 * with precise `loc`s, and the masking of secret values. Pure functions.
 */

export const TRANSPORTS: readonly McpTransport[] = ['stdio', 'sse', 'streamable_http'];

export const TRANSPORT_DISPLAY: Record<McpTransport, string> = {
  stdio: 'Standard I/O',
  sse: 'Server-Sent Events',
  streamable_http: 'Streamable HTTP',
};

export interface StdioConfig {
  command: string;
  args?: string[];
  env?: Record<string, string>;
  cwd?: string;
}

export interface HttpConfig {
  url: string;
  headers?: Record<string, string>;
  timeout_ms?: number;
}

export type McpConfig = StdioConfig | HttpConfig;

export const SECRET_MASK = '********';
const SECRET_NAME = /authorization|token|key|secret|password/i;

/** Header and env names whose values are secrets: masked on output, never logged. */
export const isSecretName = (name: string): boolean => SECRET_NAME.test(name);

const KEYS: Record<McpTransport, string[]> = {
  stdio: ['command', 'args', 'env', 'cwd'],
  sse: ['url', 'headers', 'timeout_ms'],
  streamable_http: ['url', 'headers', 'timeout_ms'],
};

export const LIMITS = {
  command: 1024,
  args: 100,
  arg: 4096,
  envEntries: 100,
  envValue: 8192,
  url: 2048,
  headers: 50,
  headerValue: 8192,
  timeoutMin: 100,
  timeoutMax: 600_000,
};

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** Headers the HTTP client owns; letting a caller set them would corrupt or smuggle requests. */
const FORBIDDEN_HEADERS = new Set(['host', 'content-length', 'transfer-encoding', 'connection', 'upgrade', 'te', 'keep-alive', 'trailer', 'proxy-connection']);

export const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

const item = (loc: (string | number)[], msg: string, type: ValidationItem['type']): ValidationItem => ({ loc, msg, type });

function checkString(value: unknown, loc: (string | number)[], max: number, items: ValidationItem[], min = 0): value is string {
  if (typeof value !== 'string') {
    items.push(item(loc, 'Input should be a valid string', 'string_type'));
    return false;
  }
  if (value.trim().length < min) {
    items.push(item(loc, `String should have at least ${min} character${min === 1 ? '' : 's'}`, 'string_too_short'));
    return false;
  }
  if (value.length > max) {
    items.push(item(loc, `String should have at most ${max} characters`, 'string_too_long'));
    return false;
  }
  // PostgreSQL cannot store NUL in text or jsonb.
  if (value.includes('\0')) {
    items.push(item(loc, 'Value must not contain NUL characters', 'value_error'));
    return false;
  }
  return true;
}

function checkStringMap(
  value: unknown,
  loc: (string | number)[],
  opts: { maxEntries: number; maxValue: number; name: RegExp; nameMsg: string; forbidden?: Set<string> },
  items: ValidationItem[],
): void {
  if (!isPlainObject(value)) {
    items.push(item(loc, 'Input should be a valid dictionary', 'dict_type'));
    return;
  }
  const entries = Object.entries(value);
  if (entries.length > opts.maxEntries) items.push(item(loc, `Should have at most ${opts.maxEntries} entries`, 'too_long'));
  for (const [name, v] of entries) {
    const at = [...loc, name];
    if (!opts.name.test(name)) items.push(item(at, opts.nameMsg, 'value_error'));
    else if (opts.forbidden?.has(name.toLowerCase())) items.push(item(at, `The ${name} header cannot be set`, 'value_error'));
    if (checkString(v, at, opts.maxValue, items) && /[\r\n]/.test(v)) items.push(item(at, 'Value must not contain line breaks', 'value_error'));
  }
}

/**
 * Every problem of `config` for `transport`, located under `loc`
 * (`["body","config"]`): missing or mistyped members, unknown members
 * (`extra_forbidden`), URLs that are not http(s).
 */
export function validateConfig(transport: McpTransport, config: unknown, loc: (string | number)[] = ['body', 'config']): ValidationItem[] {
  const items: ValidationItem[] = [];
  if (!isPlainObject(config)) return [item(loc, 'Input should be a valid dictionary', 'dict_type')];
  for (const key of Object.keys(config)) {
    if (!KEYS[transport].includes(key)) items.push(item([...loc, key], 'Extra inputs are not permitted', 'extra_forbidden'));
  }
  if (transport === 'stdio') {
    if (config.command === undefined) items.push(item([...loc, 'command'], 'Field required', 'missing'));
    else checkString(config.command, [...loc, 'command'], LIMITS.command, items, 1);
    if (config.args !== undefined) {
      if (!Array.isArray(config.args)) items.push(item([...loc, 'args'], 'Input should be a valid list', 'list_type'));
      else {
        if (config.args.length > LIMITS.args) items.push(item([...loc, 'args'], `List should have at most ${LIMITS.args} items`, 'too_long'));
        config.args.forEach((arg, i) => checkString(arg, [...loc, 'args', i], LIMITS.arg, items));
      }
    }
    if (config.env !== undefined) {
      checkStringMap(config.env, [...loc, 'env'], { maxEntries: LIMITS.envEntries, maxValue: LIMITS.envValue, name: ENV_NAME, nameMsg: 'Environment variable names are letters, digits and _, not starting with a digit' }, items);
    }
    if (config.cwd !== undefined && checkString(config.cwd, [...loc, 'cwd'], LIMITS.arg, items, 1) && !config.cwd.startsWith('/')) {
      items.push(item([...loc, 'cwd'], 'cwd must be an absolute path', 'value_error'));
    }
    return items;
  }
  if (config.url === undefined) items.push(item([...loc, 'url'], 'Field required', 'missing'));
  else if (checkString(config.url, [...loc, 'url'], LIMITS.url, items, 1)) {
    let parsed: URL | undefined;
    try {
      parsed = new URL(config.url);
    } catch {
      items.push(item([...loc, 'url'], 'Input should be a valid URL', 'value_error'));
    }
    if (parsed && parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
      items.push(item([...loc, 'url'], "URL scheme should be 'http' or 'https'", 'value_error'));
    }
  }
  if (config.headers !== undefined) {
    checkStringMap(config.headers, [...loc, 'headers'], { maxEntries: LIMITS.headers, maxValue: LIMITS.headerValue, name: HEADER_NAME, nameMsg: 'Not a valid HTTP header name', forbidden: FORBIDDEN_HEADERS }, items);
  }
  if (config.timeout_ms !== undefined) {
    const t = config.timeout_ms;
    if (typeof t !== 'number' || !Number.isInteger(t)) items.push(item([...loc, 'timeout_ms'], 'Input should be a valid integer', 'int_parsing'));
    else if (t < LIMITS.timeoutMin || t > LIMITS.timeoutMax) {
      items.push(item([...loc, 'timeout_ms'], `timeout_ms must be between ${LIMITS.timeoutMin} and ${LIMITS.timeoutMax}`, 'value_error'));
    }
  }
  return items;
}

/** The name/value maps of a config that can hold secrets. */
const SECRET_MAPS = ['headers', 'env'] as const;

/** A copy of `config` with secret header and env values replaced by the mask. */
export function maskConfig(config: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...config };
  for (const key of SECRET_MAPS) {
    const map = config[key];
    if (!isPlainObject(map)) continue;
    out[key] = Object.fromEntries(Object.entries(map).map(([name, value]) => [name, isSecretName(name) && value !== '' ? SECRET_MASK : value]));
  }
  return out;
}

/**
 * Puts stored secret values back where an update sent the mask, so a client
 * can send back what it read. A mask for a value that is not stored is a 422.
 */
export function restoreMasked(config: Record<string, unknown>, stored: Record<string, unknown>, loc: (string | number)[] = ['body', 'config']): { config: Record<string, unknown>; items: ValidationItem[] } {
  const items: ValidationItem[] = [];
  const out: Record<string, unknown> = { ...config };
  for (const key of SECRET_MAPS) {
    const map = config[key];
    if (!isPlainObject(map)) continue;
    const old = isPlainObject(stored[key]) ? stored[key] : {};
    const restored: Record<string, unknown> = {};
    for (const [name, value] of Object.entries(map)) {
      if (value !== SECRET_MASK) {
        restored[name] = value;
        continue;
      }
      // Header names are case-insensitive; env names are not.
      const match = name in old ? name : key === 'headers' ? Object.keys(old).find((n) => n.toLowerCase() === name.toLowerCase()) : undefined;
      if (match !== undefined && typeof old[match] === 'string') restored[name] = old[match];
      else items.push(item([...loc, key, name], 'The mask was sent for a value that is not stored; send the value itself', 'value_error'));
    }
    out[key] = restored;
  }
  return { config: out, items };
}

/**
 * A library app's template with the caller's config laid over it: scalar
 * members replace the template's, `env` and `headers` are merged by name.
 */
export function mergeTemplate(template: Record<string, unknown>, config: Record<string, unknown> | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = structuredClone(template);
  for (const [key, value] of Object.entries(config ?? {})) {
    if ((key === 'env' || key === 'headers') && isPlainObject(value) && isPlainObject(out[key])) out[key] = { ...out[key], ...value };
    else out[key] = value;
  }
  return out;
}
