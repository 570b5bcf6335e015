import { Check, Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { User } from '../../auth/entities/user.entity';
import { Team } from '../../teams/entities/team.entity';

/** bigint comes back from pg as a string; sizes stay far below 2^53. */
const bigintAsNumber = { to: (v: number) => v, from: (v: string | null) => (v === null ? null : Number(v)) };

/** One uploaded file of a share; the bytes are in storage under `storageKey`. */
@Entity({ name: 'files' })
@Check('files_size_check', 'size >= 0')
@Index('files_user_id_created_at_idx', ['userId', 'createdAt'])
@Index('files_user_id_task_id_idx', ['userId', 'taskId'])
@Index('files_user_id_folder_idx', ['userId', 'folder'])
export class StoredFile {
  /** Also the storage object's name: never a name the client chose. */
  @PrimaryColumn({ type: 'uuid' })
  id: string;

  @Column({ name: 'user_id', type: 'int' })
  userId: number;

  @ManyToOne(() => User, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'user_id', foreignKeyConstraintName: 'files_user_id_fkey' })
  user?: User;

  /** The team charged for the bytes (the uploader's team at upload time). */
  @Index('files_team_id_idx')
  @Column({ name: 'team_id', type: 'int' })
  teamId: number;

  @ManyToOne(() => Team, { onDelete: 'RESTRICT' })
  @JoinColumn({ name: 'team_id', foreignKeyConstraintName: 'files_team_id_fkey' })
  team?: Team;

  @Column({ type: 'text' })
  name: string;

  @Column({ type: 'bigint', transformer: bigintAsNumber })
  size: number;

  @Column({ name: 'content_type', type: 'text' })
  contentType: string;

  @Column({ type: 'char', length: 64 })
  sha256: string;

  @Column({ type: 'text', nullable: true })
  folder: string | null;

  @Column({ name: 'task_id', type: 'text', nullable: true })
  taskId: string | null;

  @Column({ name: 'task_type', type: 'text', nullable: true })
  taskType: string | null;

  /** The message sent with the upload; kept for operators, not part of the file object. */
  @Column({ type: 'text', default: '' })
  message: string;

  @Column({ name: 'storage_key', type: 'text' })
  storageKey: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
