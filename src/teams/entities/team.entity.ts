import { Check, Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';

/** A team: the unit of billing. Its users share the plan, the subscription and the usage counters. */
@Entity({ name: 'teams' })
@Check('teams_usage_storage_bytes_check', 'usage_storage_bytes >= 0')
@Check('teams_usage_files_uploaded_check', 'usage_files_uploaded >= 0')
@Check('teams_usage_mcp_connection_tests_check', 'usage_mcp_connection_tests >= 0')
export class Team {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ type: 'text' })
  name: string;

  @Column({ type: 'text', default: 'Free' })
  plan: string;

  @Column({ name: 'subscription_status', type: 'text', nullable: true })
  subscriptionStatus: string | null;

  @Column({ name: 'current_period_start', type: 'timestamptz', nullable: true })
  currentPeriodStart: Date | null;

  @Column({ name: 'current_period_end', type: 'timestamptz', nullable: true })
  currentPeriodEnd: Date | null;

  @Column({ name: 'cancel_at_period_end', type: 'boolean', default: false })
  cancelAtPeriodEnd: boolean;

  @Index('teams_payment_customer_id_idx')
  @Column({ name: 'payment_customer_id', type: 'text', nullable: true })
  paymentCustomerId: string | null;

  @Index('teams_payment_subscription_id_idx')
  @Column({ name: 'payment_subscription_id', type: 'text', nullable: true })
  paymentSubscriptionId: string | null;

  /** `created` (unix seconds) of the last subscription event applied: older ones do not overwrite newer state. */
  @Column({ name: 'last_subscription_event_created', type: 'bigint', nullable: true })
  lastSubscriptionEventCreated: string | null;

  @Column({ name: 'usage_storage_bytes', type: 'bigint', default: 0 })
  usageStorageBytes: string;

  @Column({ name: 'usage_files_uploaded', type: 'bigint', default: 0 })
  usageFilesUploaded: string;

  @Column({ name: 'usage_mcp_connection_tests', type: 'bigint', default: 0 })
  usageMcpConnectionTests: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
