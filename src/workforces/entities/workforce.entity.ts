import { Check, Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn, UpdateDateColumn } from 'typeorm';
import { User } from '../../auth/entities/user.entity';
import type { CanvasEdge, CanvasNode, Viewport } from '../canvas';

/**
 * A workforce and its draft canvas. `revision` counts saves of the draft;
 * `version` is the latest published version (0 before the first publish) and
 * `published_revision` the draft revision it was made from.
 */
@Entity({ name: 'workforces' })
@Check('workforces_revision_check', 'revision >= 0')
@Check('workforces_version_check', 'version >= 0')
@Index('workforces_nodes_idx', { synchronize: false })
@Index('workforces_user_id_created_at_idx', ['userId', 'createdAt', 'id'])
export class Workforce {
  @PrimaryColumn({ type: 'uuid' })
  id: string;

  @Column({ name: 'user_id', type: 'int' })
  userId: number;

  @ManyToOne(() => User, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'user_id', foreignKeyConstraintName: 'workforces_user_id_fkey' })
  user?: User;

  @Column({ type: 'text' })
  name: string;

  @Column({ type: 'text', default: '' })
  description: string;

  @Column({ type: 'int', default: 0 })
  revision: number;

  @Column({ type: 'jsonb', default: [] })
  nodes: CanvasNode[];

  @Column({ type: 'jsonb', default: [] })
  edges: CanvasEdge[];

  @Column({ type: 'jsonb', default: () => `'{"x": 0, "y": 0, "zoom": 1}'` })
  viewport: Viewport;

  @Column({ name: 'canvas_updated_at', type: 'timestamptz', default: () => 'now()' })
  canvasUpdatedAt: Date;

  @Column({ type: 'int', default: 0 })
  version: number;

  @Column({ name: 'published_revision', type: 'int', nullable: true })
  publishedRevision: number | null;

  @Column({ name: 'published_at', type: 'timestamptz', nullable: true })
  publishedAt: Date | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
