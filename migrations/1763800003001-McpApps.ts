import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The library of MCP apps (CONTRACT §7), seeded with well-known servers.
 * Operators add their own rows with plain INSERTs; the seed is a snapshot
 * and later edits to it belong in new migrations.
 *
 * `config_template` is the app's config for its transport. `${NAME}` in a stdio
 * argument is replaced by the value of the required configuration `NAME`,
 * which the user sends in `config.env` (it is passed to the process's
 * environment too). For HTTP apps, `required_config` names the request headers
 * the user must send (e.g. `Authorization`).
 */
interface SeedApp {
  id: string;
  name: string;
  description: string;
  category: string;
  provider: string;
  transport: 'stdio' | 'sse' | 'streamable_http';
  config_template: Record<string, unknown>;
  required_config: string[];
  auth_type: 'none' | 'api_key' | 'oauth';
  homepage: string;
}

const REF = 'https://github.com/modelcontextprotocol/servers/tree/main/src';
const ARCHIVED = 'https://github.com/modelcontextprotocol/servers-archived/tree/main/src';
const MCP = 'Model Context Protocol';

const npx = (...args: string[]) => ({ command: 'npx', args });
const uvx = (...args: string[]) => ({ command: 'uvx', args });

export const SEED_APPS: SeedApp[] = [
  // Reference servers maintained by the MCP project.
  { id: 'filesystem', name: 'Filesystem', description: 'Read, write, search, move and inspect files within the directories you allow.', category: 'files', provider: MCP, transport: 'stdio', config_template: npx('-y', '@modelcontextprotocol/server-filesystem', '${ALLOWED_DIRECTORY}'), required_config: ['ALLOWED_DIRECTORY'], auth_type: 'none', homepage: `${REF}/filesystem` },
  { id: 'fetch', name: 'Fetch', description: 'Fetch web pages and convert them to Markdown for language models.', category: 'web', provider: MCP, transport: 'stdio', config_template: uvx('mcp-server-fetch'), required_config: [], auth_type: 'none', homepage: `${REF}/fetch` },
  { id: 'git', name: 'Git', description: 'Read, search and change a local Git repository: status, diff, log, commit, branches.', category: 'developer-tools', provider: MCP, transport: 'stdio', config_template: uvx('mcp-server-git', '--repository', '${GIT_REPOSITORY}'), required_config: ['GIT_REPOSITORY'], auth_type: 'none', homepage: `${REF}/git` },
  { id: 'memory', name: 'Knowledge Graph Memory', description: 'Persistent memory kept as a local knowledge graph of entities, relations and observations.', category: 'knowledge', provider: MCP, transport: 'stdio', config_template: npx('-y', '@modelcontextprotocol/server-memory'), required_config: [], auth_type: 'none', homepage: `${REF}/memory` },
  { id: 'time', name: 'Time', description: 'Current time and conversions between IANA time zones.', category: 'utilities', provider: MCP, transport: 'stdio', config_template: uvx('mcp-server-time'), required_config: [], auth_type: 'none', homepage: `${REF}/time` },
  { id: 'sequential-thinking', name: 'Sequential Thinking', description: 'Step-by-step problem solving with thoughts that can be revised and branched.', category: 'reasoning', provider: MCP, transport: 'stdio', config_template: npx('-y', '@modelcontextprotocol/server-sequential-thinking'), required_config: [], auth_type: 'none', homepage: `${REF}/sequentialthinking` },
  { id: 'everything', name: 'Everything', description: 'Reference and test server that exercises every MCP feature: tools, resources, prompts, sampling.', category: 'developer-tools', provider: MCP, transport: 'stdio', config_template: npx('-y', '@modelcontextprotocol/server-everything'), required_config: [], auth_type: 'none', homepage: `${REF}/everything` },
  { id: 'postgres', name: 'PostgreSQL', description: 'Read-only access to a PostgreSQL database: inspect schemas and run read-only queries.', category: 'databases', provider: MCP, transport: 'stdio', config_template: npx('-y', '@modelcontextprotocol/server-postgres', '${POSTGRES_URL}'), required_config: ['POSTGRES_URL'], auth_type: 'api_key', homepage: `${ARCHIVED}/postgres` },
  { id: 'sqlite', name: 'SQLite', description: 'Query and analyse a SQLite database, keeping a memo of business insights.', category: 'databases', provider: MCP, transport: 'stdio', config_template: uvx('mcp-server-sqlite', '--db-path', '${SQLITE_DB_PATH}'), required_config: ['SQLITE_DB_PATH'], auth_type: 'none', homepage: `${ARCHIVED}/sqlite` },
  { id: 'puppeteer', name: 'Puppeteer', description: 'Browser automation with Puppeteer: navigate, take screenshots, click, fill forms and run JavaScript.', category: 'browser-automation', provider: MCP, transport: 'stdio', config_template: npx('-y', '@modelcontextprotocol/server-puppeteer'), required_config: [], auth_type: 'none', homepage: `${ARCHIVED}/puppeteer` },
  { id: 'google-maps', name: 'Google Maps', description: 'Geocoding, place search and details, distances, elevation and directions from Google Maps Platform.', category: 'maps', provider: MCP, transport: 'stdio', config_template: npx('-y', '@modelcontextprotocol/server-google-maps'), required_config: ['GOOGLE_MAPS_API_KEY'], auth_type: 'api_key', homepage: `${ARCHIVED}/google-maps` },

  // Vendors' servers.
  { id: 'github', name: 'GitHub', description: "GitHub's hosted MCP server: repositories, issues, pull requests, Actions and code security.", category: 'developer-tools', provider: 'GitHub', transport: 'streamable_http', config_template: { url: 'https://api.githubcopilot.com/mcp/' }, required_config: ['Authorization'], auth_type: 'oauth', homepage: 'https://github.com/github/github-mcp-server' },
  { id: 'github-docker', name: 'GitHub (local, Docker)', description: "GitHub's MCP server run locally in Docker with a personal access token.", category: 'developer-tools', provider: 'GitHub', transport: 'stdio', config_template: { command: 'docker', args: ['run', '-i', '--rm', '-e', 'GITHUB_PERSONAL_ACCESS_TOKEN', 'ghcr.io/github/github-mcp-server'] }, required_config: ['GITHUB_PERSONAL_ACCESS_TOKEN'], auth_type: 'api_key', homepage: 'https://github.com/github/github-mcp-server' },
  { id: 'slack', name: 'Slack', description: 'List channels, post messages, reply in threads, add reactions and read history and users of a Slack workspace.', category: 'communication', provider: 'Zencoder', transport: 'stdio', config_template: npx('-y', '@zencoderai/slack-mcp-server'), required_config: ['SLACK_BOT_TOKEN', 'SLACK_TEAM_ID'], auth_type: 'api_key', homepage: 'https://github.com/zencoderai/slack-mcp-server' },
  { id: 'notion', name: 'Notion', description: "Notion's hosted MCP server: search, read, create and update pages and databases.", category: 'productivity', provider: 'Notion', transport: 'streamable_http', config_template: { url: 'https://mcp.notion.com/mcp' }, required_config: [], auth_type: 'oauth', homepage: 'https://developers.notion.com/docs/mcp' },
  { id: 'linear', name: 'Linear', description: 'Find, create and update Linear issues, projects and comments.', category: 'project-management', provider: 'Linear', transport: 'sse', config_template: { url: 'https://mcp.linear.app/sse' }, required_config: [], auth_type: 'oauth', homepage: 'https://linear.app/docs/mcp' },
  { id: 'sentry', name: 'Sentry', description: 'Query Sentry issues, errors, traces, releases and projects, and ask Seer for fixes.', category: 'observability', provider: 'Sentry', transport: 'streamable_http', config_template: { url: 'https://mcp.sentry.dev/mcp' }, required_config: [], auth_type: 'oauth', homepage: 'https://docs.sentry.io/product/sentry-mcp/' },
  { id: 'stripe', name: 'Stripe', description: "Stripe's hosted MCP server: customers, products, payments, invoices, subscriptions and documentation search.", category: 'payments', provider: 'Stripe', transport: 'streamable_http', config_template: { url: 'https://mcp.stripe.com' }, required_config: ['Authorization'], auth_type: 'api_key', homepage: 'https://docs.stripe.com/mcp' },
  { id: 'brave-search', name: 'Brave Search', description: 'Web, local, image, video and news search through the Brave Search API.', category: 'search', provider: 'Brave', transport: 'stdio', config_template: npx('-y', '@brave/brave-search-mcp-server'), required_config: ['BRAVE_API_KEY'], auth_type: 'api_key', homepage: 'https://github.com/brave/brave-search-mcp-server' },
  { id: 'playwright', name: 'Playwright', description: 'Browser automation through accessibility snapshots: navigate, click, type, fill forms and take screenshots.', category: 'browser-automation', provider: 'Microsoft', transport: 'stdio', config_template: npx('@playwright/mcp@latest'), required_config: [], auth_type: 'none', homepage: 'https://github.com/microsoft/playwright-mcp' },
  { id: 'cloudflare-docs', name: 'Cloudflare Documentation', description: 'Search up-to-date Cloudflare developer documentation.', category: 'documentation', provider: 'Cloudflare', transport: 'sse', config_template: { url: 'https://docs.mcp.cloudflare.com/sse' }, required_config: [], auth_type: 'none', homepage: 'https://github.com/cloudflare/mcp-server-cloudflare' },
  { id: 'cloudflare-bindings', name: 'Cloudflare Workers Bindings', description: 'Manage Workers, KV namespaces, R2 buckets, D1 databases and Hyperdrive in a Cloudflare account.', category: 'cloud', provider: 'Cloudflare', transport: 'sse', config_template: { url: 'https://bindings.mcp.cloudflare.com/sse' }, required_config: [], auth_type: 'oauth', homepage: 'https://github.com/cloudflare/mcp-server-cloudflare' },
  { id: 'atlassian', name: 'Atlassian (Jira and Confluence)', description: "Atlassian's Remote MCP Server: search, create and update Jira issues and Confluence pages.", category: 'project-management', provider: 'Atlassian', transport: 'sse', config_template: { url: 'https://mcp.atlassian.com/v1/sse' }, required_config: [], auth_type: 'oauth', homepage: 'https://www.atlassian.com/platform/remote-mcp-server' },
  { id: 'asana', name: 'Asana', description: 'Read and update Asana tasks, projects, goals and portfolios.', category: 'project-management', provider: 'Asana', transport: 'sse', config_template: { url: 'https://mcp.asana.com/sse' }, required_config: [], auth_type: 'oauth', homepage: 'https://developers.asana.com/docs/using-asanas-mcp-server' },
  { id: 'supabase', name: 'Supabase', description: 'Manage Supabase projects: tables, SQL, migrations, Edge Functions, logs and branches.', category: 'databases', provider: 'Supabase', transport: 'streamable_http', config_template: { url: 'https://mcp.supabase.com/mcp' }, required_config: [], auth_type: 'oauth', homepage: 'https://supabase.com/docs/guides/getting-started/mcp' },
  { id: 'context7', name: 'Context7', description: 'Up-to-date, version-specific documentation and code examples of libraries, for prompts.', category: 'documentation', provider: 'Upstash', transport: 'streamable_http', config_template: { url: 'https://mcp.context7.com/mcp' }, required_config: [], auth_type: 'none', homepage: 'https://github.com/upstash/context7' },
  { id: 'firecrawl', name: 'Firecrawl', description: 'Scrape, crawl, map and search the web with Firecrawl, returning clean Markdown.', category: 'web', provider: 'Firecrawl', transport: 'stdio', config_template: npx('-y', 'firecrawl-mcp'), required_config: ['FIRECRAWL_API_KEY'], auth_type: 'api_key', homepage: 'https://github.com/firecrawl/firecrawl-mcp-server' },
  { id: 'exa', name: 'Exa Search', description: 'Web search, code search and company research through the Exa API.', category: 'search', provider: 'Exa', transport: 'stdio', config_template: npx('-y', 'exa-mcp-server'), required_config: ['EXA_API_KEY'], auth_type: 'api_key', homepage: 'https://github.com/exa-labs/exa-mcp-server' },
  { id: 'tavily', name: 'Tavily', description: 'Real-time web search, extraction, crawling and site mapping with the Tavily API.', category: 'search', provider: 'Tavily', transport: 'stdio', config_template: npx('-y', 'tavily-mcp@latest'), required_config: ['TAVILY_API_KEY'], auth_type: 'api_key', homepage: 'https://github.com/tavily-ai/tavily-mcp' },
  { id: 'redis', name: 'Redis', description: 'Natural-language access to Redis data: strings, hashes, lists, sets, sorted sets, streams, JSON and vector search.', category: 'databases', provider: 'Redis', transport: 'stdio', config_template: uvx('--from', 'redis-mcp-server@latest', 'redis-mcp-server', '--url', '${REDIS_URL}'), required_config: ['REDIS_URL'], auth_type: 'api_key', homepage: 'https://github.com/redis/mcp-redis' },
  { id: 'mongodb', name: 'MongoDB', description: 'Query and manage MongoDB databases and MongoDB Atlas clusters.', category: 'databases', provider: 'MongoDB', transport: 'stdio', config_template: npx('-y', 'mongodb-mcp-server'), required_config: ['MDB_MCP_CONNECTION_STRING'], auth_type: 'api_key', homepage: 'https://github.com/mongodb-js/mongodb-mcp-server' },
  { id: 'aws-documentation', name: 'AWS Documentation', description: 'Search, read and get recommendations from the AWS documentation.', category: 'documentation', provider: 'AWS', transport: 'stdio', config_template: uvx('awslabs.aws-documentation-mcp-server@latest'), required_config: [], auth_type: 'none', homepage: 'https://github.com/awslabs/mcp' },
  { id: 'huggingface', name: 'Hugging Face', description: 'Search models, datasets, Spaces and papers on the Hugging Face Hub and use Gradio Spaces as tools.', category: 'ai', provider: 'Hugging Face', transport: 'streamable_http', config_template: { url: 'https://huggingface.co/mcp' }, required_config: [], auth_type: 'none', homepage: 'https://huggingface.co/settings/mcp' },
  { id: 'deepwiki', name: 'DeepWiki', description: "Ask questions about public GitHub repositories using DeepWiki's generated documentation.", category: 'documentation', provider: 'Cognition', transport: 'streamable_http', config_template: { url: 'https://mcp.deepwiki.com/mcp' }, required_config: [], auth_type: 'none', homepage: 'https://docs.devin.ai/work-with-devin/deepwiki-mcp' },
];

export class McpApps1763800003001 implements MigrationInterface {
  name = 'McpApps1763800003001';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE mcp_apps (
        id text PRIMARY KEY CHECK (id ~ '^[a-z0-9][a-z0-9._-]{0,99}$'),
        name text NOT NULL,
        description text NOT NULL DEFAULT '',
        category text NOT NULL,
        provider text NOT NULL,
        transport text NOT NULL CHECK (transport IN ('stdio', 'sse', 'streamable_http')),
        config_template jsonb NOT NULL,
        required_config jsonb NOT NULL DEFAULT '[]'::jsonb CHECK (jsonb_typeof(required_config) = 'array'),
        auth_type text NOT NULL DEFAULT 'none' CHECK (auth_type IN ('none', 'api_key', 'oauth')),
        homepage text,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX mcp_apps_category_idx ON mcp_apps (lower(category))`);
    await q.query(`CREATE INDEX mcp_apps_provider_idx ON mcp_apps (lower(provider))`);
    for (const app of SEED_APPS) {
      await q.query(
        `INSERT INTO mcp_apps (id, name, description, category, provider, transport, config_template, required_config, auth_type, homepage)
         VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb, $8::jsonb, $9, $10)`,
        [app.id, app.name, app.description, app.category, app.provider, app.transport, JSON.stringify(app.config_template), JSON.stringify(app.required_config), app.auth_type, app.homepage],
      );
    }

    // Connection tests in flight, one row each, so the per-user limit holds across
    // several instances. A row outlives a crashed instance only until expires_at.
    await q.query(`
      CREATE TABLE mcp_test_slots (
        id bigserial PRIMARY KEY,
        user_id integer NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        started_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz NOT NULL
      )`);
    await q.query(`CREATE INDEX mcp_test_slots_user_id_idx ON mcp_test_slots (user_id, expires_at)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE mcp_test_slots`);
    await q.query(`DROP TABLE mcp_apps`);
  }
}
