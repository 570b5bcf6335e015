import { Inject, Injectable } from '@nestjs/common';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport, SseError } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { performance } from 'node:perf_hooks';
import { Agent, fetch as undiciFetch } from 'undici';
import type { UserRole } from '../auth/entities/user.entity';
import { APP_CONFIG, AppConfig } from '../config/config';
import { BlockedAddressError, ipLiteral, PinnedLookup } from './address-guard';
import type { McpApp } from './entities/mcp-app.entity';
import type { McpTransport } from './entities/mcp-server.entity';
import type { HttpConfig, StdioConfig } from './mcp-config';
import { ProcessTransport } from './process-transport';
import { decideStdio } from './stdio-policy';

export type TestErrorCode =
  | 'timeout'
  | 'connection_refused'
  | 'dns_error'
  | 'http_error'
  | 'protocol_error'
  | 'spawn_error'
  | 'blocked_address'
  | 'stdio_disabled'
  | 'command_not_allowed';

export interface TestResult {
  success: boolean;
  message: string;
  details: Record<string, unknown>;
}

export interface TestTarget {
  transport: McpTransport;
  /** The effective config (validated; merged with the app's template for HTTP apps). */
  config: Record<string, unknown>;
  /** The config as the caller sent it: the stdio policy judges this, not the merge. */
  sent: Record<string, unknown>;
  app?: McpApp;
  role: UserRole;
}

class TestFailure extends Error {
  constructor(
    readonly code: TestErrorCode,
    message: string,
    readonly extra: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

const CLIENT_INFO = { name: 'agent-platform-connection-test', version: '1.0.0' };
const MAX_TOOL_PAGES = 20;

/**
 * Connects to an MCP server with the official SDK client (initialise, list
 * tools, disconnect) and says what happened. Everything it starts — sockets,
 * the child process and its process group — is closed before it answers,
 * also after the hard timeout.
 */
@Injectable()
export class ConnectionTester {
  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  async run(target: TestTarget): Promise<TestResult> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    const failure = (code: TestErrorCode, message: string, extra: Record<string, unknown> = {}): TestResult => ({
      success: false,
      message,
      details: { error: code, ...extra, elapsed_ms: elapsed() },
    });

    const timeoutMs = Math.min((target.config as Partial<HttpConfig>).timeout_ms ?? this.config.mcp.testTimeoutMs, this.config.mcp.testTimeoutMs);
    let transport: Transport;
    let agent: Agent | undefined;
    let pinned: PinnedLookup | undefined;
    let url: URL | undefined;
    // The SSE client's EventSource swallows fetch errors (it reports only a message): keep them for classify().
    const networkErrors: unknown[] = [];

    if (target.transport === 'stdio') {
      if (!this.config.mcp.stdioEnabled) return failure('stdio_disabled', 'Stdio MCP servers are disabled on this service (MCP_STDIO_ENABLED is not true)');
      const decision = decideStdio({
        role: target.role,
        sent: target.sent as Partial<StdioConfig>,
        app: target.app,
        allowedCommands: this.config.mcp.stdioAllowedCommands,
        path: this.config.mcp.stdioPath,
      });
      if (!decision.allowed) return failure('command_not_allowed', decision.message);
      transport = new ProcessTransport(decision.params);
    } else {
      const config = target.config as unknown as HttpConfig;
      url = new URL(config.url);
      pinned = new PinnedLookup(this.config.mcp.allowPrivateNetworks);
      try {
        pinned.checkLiteral(url.hostname);
      } catch (err) {
        return failure('blocked_address', blockedMessage(err as BlockedAddressError));
      }
      agent = new Agent({ connect: { lookup: pinned.lookup, timeout: timeoutMs }, connections: 4 });
      const fetch = guardedFetch(agent, pinned, networkErrors);
      const requestInit = { headers: config.headers ?? {} };
      transport =
        target.transport === 'sse'
          ? new SSEClientTransport(url, { fetch, requestInit })
          : new StreamableHTTPClientTransport(url, {
              fetch,
              requestInit,
              reconnectionOptions: { maxRetries: 0, initialReconnectionDelay: 1000, maxReconnectionDelay: 1000, reconnectionDelayGrowFactor: 1 },
            });
    }

    let protocolVersion: string | undefined;
    const setProtocolVersion = transport.setProtocolVersion?.bind(transport);
    transport.setProtocolVersion = (version: string) => {
      protocolVersion = version;
      setProtocolVersion?.(version);
    };

    const client = new Client(CLIENT_INFO, { capabilities: {} });
    const abort = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), timeoutMs);
    });
    const work = (async () => {
      // Resolve (and check) the name first, so a blocked or unknown host is reported as such.
      if (url && pinned && ipLiteral(url.hostname) === undefined) await pinned.addresses(url.hostname);
      // A slow resolution may end after the timeout tore everything down: connect nothing then.
      if (abort.signal.aborted) throw new TestFailure('timeout', 'Timed out');
      await client.connect(transport, { signal: abort.signal, timeout: timeoutMs });
      return await this.listTools(client, abort.signal, timeoutMs);
    })();
    const settled = work.then(
      (tools) => ({ tools }),
      (error: unknown) => ({ error }),
    );

    try {
      const outcome = await Promise.race([settled, deadline]);
      if (outcome === 'timeout') return failure('timeout', `The server did not answer within ${timeoutMs} ms`);
      if ('error' in outcome) {
        const f = classify([outcome.error, ...networkErrors], target, url);
        return failure(f.code, f.message, f.extra);
      }
      const server = client.getServerVersion();
      const details = {
        server_info: { name: server?.name ?? null, version: server?.version ?? null },
        protocol_version: protocolVersion ?? null,
        capabilities: client.getServerCapabilities() ?? {},
        tools: outcome.tools.map((t) => ({ name: t.name, description: t.description ?? null })),
        tool_count: outcome.tools.length,
        elapsed_ms: elapsed(),
      };
      return { success: true, message: `Connected to ${server?.name ?? 'MCP server'} ${server?.version ?? ''}`.trim(), details };
    } finally {
      clearTimeout(timer);
      abort.abort();
      await Promise.race([client.close().catch(() => undefined), delay(3000)]);
      if (transport instanceof ProcessTransport) await transport.close();
      await Promise.race([agent?.destroy().catch(() => undefined), delay(1000)]);
    }
  }

  private async listTools(client: Client, signal: AbortSignal, timeout: number): Promise<Tool[]> {
    if (!client.getServerCapabilities()?.tools) return [];
    const tools: Tool[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < MAX_TOOL_PAGES; page++) {
      const result = await client.listTools(cursor ? { cursor } : undefined, { signal, timeout });
      tools.push(...result.tools);
      cursor = result.nextCursor;
      if (!cursor) break;
    }
    return tools;
  }
}

/**
 * The fetch handed to the SDK's HTTP transports: undici over an Agent whose
 * sockets resolve names through the pinned, checked lookup. Redirects are
 * never followed here (`redirect: 'manual'`): the SDK follows same-origin
 * redirects itself by calling this fetch again, so every hop is checked, and
 * reports any other redirect as an error.
 */
function guardedFetch(agent: Agent, pinned: PinnedLookup, errors: unknown[]): typeof fetch {
  return (async (input: string | URL | Request, init?: RequestInit) => {
    const target = new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url);
    if (target.protocol !== 'http:' && target.protocol !== 'https:') throw new TestFailure('protocol_error', `Refusing a ${target.protocol} URL`);
    try {
      pinned.checkLiteral(target.hostname);
      const response = await undiciFetch(target, { ...(init as object), redirect: 'manual', dispatcher: agent } as Parameters<typeof undiciFetch>[1]);
      return response as unknown as Response;
    } catch (err) {
      errors.push(err);
      throw err;
    }
  }) as typeof fetch;
}

const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());

function blockedMessage(err: BlockedAddressError): string {
  return `Refusing to connect: ${err.message} (set MCP_ALLOW_PRIVATE_NETWORKS=true to allow private networks)`;
}

/** The errors, their causes and, for AggregateErrors, their members. */
function chain(errors: unknown[]): unknown[] {
  const out: unknown[] = [];
  const queue = [...errors];
  while (queue.length > 0 && out.length < 50) {
    const e = queue.shift();
    if (e === undefined || e === null || out.includes(e)) continue;
    out.push(e);
    if (typeof e === 'object') {
      const { cause, errors } = e as { cause?: unknown; errors?: unknown };
      queue.push(cause);
      if (Array.isArray(errors)) queue.push(...(errors as unknown[]));
    }
  }
  return out;
}

const DNS_CODES = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_NONAME', 'EAI_FAIL', 'EAI_NODATA']);
const UNREACHABLE_CODES = new Set(['EHOSTUNREACH', 'ENETUNREACH', 'EADDRNOTAVAIL']);
const TIMEOUT_CODES = new Set(['ETIMEDOUT', 'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);
const CLOSED_CODES = new Set(['ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED']);

/** Maps whatever the SDK, undici, dns or spawn threw to the contract's failure codes. */
function classify(thrown: unknown[], target: TestTarget, url: URL | undefined): TestFailure {
  const errors = chain(thrown);
  const where = url ? url.host : '';
  for (const e of errors) {
    if (e instanceof TestFailure) return e;
    if (e instanceof BlockedAddressError) return new TestFailure('blocked_address', blockedMessage(e));
  }
  for (const e of errors) {
    const { code, syscall } = (e ?? {}) as { code?: unknown; syscall?: unknown };
    if (typeof code !== 'string') continue;
    if (target.transport === 'stdio' && typeof syscall === 'string' && syscall.startsWith('spawn')) {
      const command = syscall.slice('spawn '.length) || 'the command';
      return new TestFailure('spawn_error', code === 'ENOENT' ? `Could not start ${command}: command not found` : `Could not start ${command}: ${code}`);
    }
    if (DNS_CODES.has(code)) return new TestFailure('dns_error', `Could not resolve ${url?.hostname ?? 'the host'}`);
    if (code === 'ECONNREFUSED') return new TestFailure('connection_refused', `Connection refused by ${where}`);
    if (UNREACHABLE_CODES.has(code)) return new TestFailure('connection_refused', `${where} is unreachable`);
    if (TIMEOUT_CODES.has(code)) return new TestFailure('timeout', `Timed out connecting to ${where}`);
    if (CLOSED_CODES.has(code)) return new TestFailure('protocol_error', `${where} closed the connection without an MCP answer`);
    if (/^(CERT_|ERR_TLS_|ERR_SSL_)|SELF_SIGNED|UNABLE_TO_VERIFY|UNABLE_TO_GET_ISSUER/.test(code)) {
      return new TestFailure('protocol_error', `TLS handshake with ${where} failed (${code})`);
    }
  }
  for (const e of errors) {
    if (e instanceof StreamableHTTPError || e instanceof SseError) {
      const status = e.code;
      if (typeof status === 'number' && status >= 300 && status <= 599) {
        return new TestFailure('http_error', `The server answered HTTP ${status}`, { status });
      }
    }
  }
  const first = errors[0];
  const raw = first instanceof Error ? first.message : String(first);
  return new TestFailure('protocol_error', `Not a working MCP server: ${raw.replace(/\s+/g, ' ').slice(0, 200)}`);
}
