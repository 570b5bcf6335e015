import { Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { Agent } from '../../agents/entities/agent.entity';
import { User } from '../../auth/entities/user.entity';

/**
 * A memory entry, owned by a user and optionally by one of their agents (it
 * goes with the agent). The table also has `search`, a generated tsvector of
 * the content with a GIN index, used only in SQL (memory.service.ts).
 */
@Entity({ name: 'memory_entries' })
@Index('memory_entries_user_id_created_at_idx', ['userId', 'createdAt', 'id'])
export class MemoryEntry {
  @PrimaryColumn({ type: 'uuid' })
  id: string;

  @Column({ name: 'user_id', type: 'int' })
  userId: number;

  @ManyToOne(() => User, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'user_id' })
  user?: User;

  @Index('memory_entries_agent_id_idx')
  @Column({ name: 'agent_id', type: 'uuid', nullable: true })
  agentId: string | null;

  @ManyToOne(() => Agent, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'agent_id' })
  agent?: Agent;

  @Column({ type: 'text' })
  content: string;

  @Column({ type: 'text', array: true, default: () => "'{}'" })
  tags: string[];

  @Column({ type: 'jsonb', default: {} })
  metadata: Record<string, unknown>;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
