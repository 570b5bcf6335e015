import { Check, Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';
import { User } from '../../auth/entities/user.entity';

export type McpTransport = 'stdio' | 'sse' | 'streamable_http';

/** A saved MCP server, owned by one user. */
@Entity({ name: 'mcp_servers' })
@Index('mcp_servers_user_id_name_key', ['userId', 'name'], { unique: true })
@Index('mcp_servers_one_default_per_user', ['userId'], { unique: true, where: 'is_default' })
@Check('mcp_servers_transport_check', `transport IN ('stdio', 'sse', 'streamable_http')`)
export class McpServer {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'user_id', type: 'int' })
  userId: number;

  @ManyToOne(() => User, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'user_id', foreignKeyConstraintName: 'mcp_servers_user_id_fkey' })
  user?: User;

  @Column({ type: 'text' })
  name: string;

  @Column({ type: 'text' })
  transport: McpTransport;

  @Column({ type: 'text', default: '' })
  description: string;

  @Column({ type: 'jsonb', default: {} })
  config: Record<string, unknown>;

  @Column({ name: 'is_active', type: 'boolean', default: true })
  isActive: boolean;

  @Column({ name: 'is_default', type: 'boolean', default: false })
  isDefault: boolean;

  @Column({ name: 'connected_account', type: 'text', nullable: true })
  connectedAccount: string | null;

  @Column({ name: 'app_id', type: 'text', nullable: true })
  appId: string | null;

  @Column({ type: 'text', nullable: true })
  provider: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
