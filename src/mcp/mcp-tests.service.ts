import { Inject, Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { AuthUser } from '../common/auth/auth-user';
import { TooManyRequests, ValidationFailed, ValidationItem } from '../common/errors/errors';
import { APP_CONFIG, AppConfig } from '../config/config';
import { UsageService } from '../teams/usage.service';
import { ConnectionTester, TestResult } from './connection-tester';
import type { TestConnectionDto } from './dto/mcp-server.dto';
import type { McpApp } from './entities/mcp-app.entity';
import type { McpTransport } from './entities/mcp-server.entity';
import { McpAppsService } from './mcp-apps.service';
import { isPlainObject, mergeTemplate, validateConfig } from './mcp-config';

/** Margin after the test timeout before a slot left by a crashed instance stops counting. */
const SLOT_GRACE_MS = 15_000;

/**
 * `POST /api/mcp/test-connection`: validation, the per-user limit on tests in
 * flight, usage counting, then the test itself (ConnectionTester).
 */
@Injectable()
export class McpTestsService {
  private readonly logger = new Logger(McpTestsService.name);

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly apps: McpAppsService,
    private readonly usage: UsageService,
    private readonly tester: ConnectionTester,
  ) {}

  async testConnection(user: AuthUser, body: TestConnectionDto): Promise<TestResult> {
    const app = body.app_id !== undefined ? await this.apps.forInput(body.app_id) : undefined;
    const transport: McpTransport = body.transport ?? app!.transport;
    const sent = body.config ?? {};
    const fromApp = app !== undefined && app.transport === transport;
    const config = fromApp ? mergeTemplate(app.configTemplate, sent) : sent;
    const items = validateConfig(transport, config);
    if (fromApp && items.length === 0) items.push(...missingRequired(app, transport, config));
    if (items.length > 0) throw new ValidationFailed(items);

    const slot = await this.acquireSlot(user);
    try {
      const result = await this.tester.run({ transport, config, sent, app, role: user.role });
      // Outcome only: the config (URLs, headers, env) may hold secrets.
      this.logger.log({ userId: user.id, transport, appId: app?.id, success: result.success, error: result.details.error, elapsedMs: result.details.elapsed_ms }, 'MCP connection test');
      return result;
    } finally {
      await this.dataSource.query('DELETE FROM mcp_test_slots WHERE id = $1', [slot]);
    }
  }

  /**
   * Takes one of the user's MCP_MAX_TESTS_IN_FLIGHT slots (429 when none is
   * free) and counts the test in the team's usage (402 over quota), in one
   * transaction. Slots are rows, so the limit holds across instances.
   */
  private async acquireSlot(user: AuthUser): Promise<string> {
    const { testTimeoutMs, maxTestsInFlight } = this.config.mcp;
    return this.dataSource.transaction(async (m) => {
      await m.query('SELECT id FROM users WHERE id = $1 FOR UPDATE', [user.id]);
      await m.query('DELETE FROM mcp_test_slots WHERE user_id = $1 AND expires_at <= now()', [user.id]);
      const [{ n }] = (await m.query('SELECT count(*)::int AS n FROM mcp_test_slots WHERE user_id = $1', [user.id])) as { n: number }[];
      if (n >= maxTestsInFlight) throw new TooManyRequests(Math.ceil(testTimeoutMs / 1000));
      await this.usage.consume(user.teamId, 'mcp_connection_tests', 1, m);
      const [{ id }] = (await m.query(
        `INSERT INTO mcp_test_slots (user_id, expires_at) VALUES ($1, now() + make_interval(secs => $2)) RETURNING id::text AS id`,
        [user.id, (testTimeoutMs + SLOT_GRACE_MS) / 1000],
      )) as { id: string }[];
      return id;
    });
  }
}

/** The app's required configuration that the request leaves empty: env values (stdio) or headers (HTTP). */
function missingRequired(app: McpApp, transport: McpTransport, config: Record<string, unknown>): ValidationItem[] {
  const where = transport === 'stdio' ? 'env' : 'headers';
  const map = isPlainObject(config[where]) ? (config[where] as Record<string, unknown>) : {};
  const present = (name: string) =>
    where === 'env' ? typeof map[name] === 'string' && map[name] !== '' : Object.entries(map).some(([k, v]) => k.toLowerCase() === name.toLowerCase() && v !== '');
  return app.requiredConfig
    .filter((name) => !present(name))
    .map((name) => ({ loc: ['body', 'config', where, name], msg: `Field required by the library app ${app.id}`, type: 'missing' as const }));
}
