import { Check, Column, Entity, JoinColumn, ManyToOne, PrimaryGeneratedColumn, Unique } from 'typeorm';
import type { AgentView } from '../../agents/dto/agent.dto';
import type { Canvas } from '../canvas';
import { Workforce } from './workforce.entity';

/** An immutable published version: the canvas and a snapshot of every agent it used, as they were. */
@Entity({ name: 'workforce_versions' })
@Check('workforce_versions_version_check', 'version >= 1')
@Unique('workforce_versions_workforce_id_version_key', ['workforceId', 'version'])
@Unique('workforce_versions_workforce_id_revision_key', ['workforceId', 'revision'])
export class WorkforceVersion {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id: string;

  @Column({ name: 'workforce_id', type: 'uuid' })
  workforceId: string;

  @ManyToOne(() => Workforce, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'workforce_id', foreignKeyConstraintName: 'workforce_versions_workforce_id_fkey' })
  workforce?: Workforce;

  @Column({ type: 'int' })
  version: number;

  @Column({ type: 'int' })
  revision: number;

  @Column({ type: 'jsonb' })
  canvas: Canvas;

  @Column({ type: 'jsonb' })
  agents: AgentView[];

  @Column({ name: 'published_at', type: 'timestamptz', default: () => 'now()' })
  publishedAt: Date;
}
