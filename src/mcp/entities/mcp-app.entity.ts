import { Check, Column, CreateDateColumn, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';
import type { McpTransport } from './mcp-server.entity';

export type McpAuthType = 'none' | 'api_key' | 'oauth';

/** A library app: a known MCP server with its config template (seeded by a migration; operators may add rows). */
@Entity({ name: 'mcp_apps' })
@Check('mcp_apps_id_check', `id ~ '^[a-z0-9][a-z0-9._-]{0,99}$'`)
@Check('mcp_apps_transport_check', `transport IN ('stdio', 'sse', 'streamable_http')`)
@Check('mcp_apps_required_config_check', `jsonb_typeof(required_config) = 'array'`)
@Check('mcp_apps_auth_type_check', `auth_type IN ('none', 'api_key', 'oauth')`)
export class McpApp {
  @PrimaryColumn({ type: 'text' })
  id: string;

  @Column({ type: 'text' })
  name: string;

  @Column({ type: 'text', default: '' })
  description: string;

  @Column({ type: 'text' })
  category: string;

  @Column({ type: 'text' })
  provider: string;

  @Column({ type: 'text' })
  transport: McpTransport;

  @Column({ name: 'config_template', type: 'jsonb' })
  configTemplate: Record<string, unknown>;

  @Column({ name: 'required_config', type: 'jsonb', default: [] })
  requiredConfig: string[];

  @Column({ name: 'auth_type', type: 'text', default: 'none' })
  authType: McpAuthType;

  @Column({ type: 'text', nullable: true })
  homepage: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
