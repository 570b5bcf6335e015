import { Check, Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import { Team } from '../../teams/entities/team.entity';

export type UserRole = 'admin' | 'member';

@Entity({ name: 'users' })
@Check('users_role_check', `role IN ('admin', 'member')`)
export class User {
  @PrimaryGeneratedColumn()
  id: number;

  /** Stored lower-cased; unique. */
  @Index('users_email_key', { unique: true })
  @Column({ type: 'text' })
  email: string;

  @Column({ type: 'text', default: 'member' })
  role: UserRole;

  @Index('users_team_id_idx')
  @Column({ name: 'team_id', type: 'int' })
  teamId: number;

  @ManyToOne(() => Team, { onDelete: 'RESTRICT' })
  @JoinColumn({ name: 'team_id', foreignKeyConstraintName: 'users_team_id_fkey' })
  team?: Team;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
