import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/** The latest failed attempt at an event (payload and error), kept for operators and replay. */
@Entity({ name: 'webhook_failures' })
@Index('webhook_failures_last_failed_at_idx', ['lastFailedAt'])
export class WebhookFailure {
  @PrimaryColumn({ name: 'event_id', type: 'text' })
  eventId: string;

  @Column({ name: 'event_type', type: 'text' })
  eventType: string;

  @Column({ type: 'jsonb' })
  payload: Record<string, unknown>;

  @Column({ type: 'text' })
  error: string;

  @Column({ type: 'integer', default: 1 })
  attempts: number;

  @Column({ name: 'first_failed_at', type: 'timestamptz', default: () => 'now()' })
  firstFailedAt: Date;

  @Column({ name: 'last_failed_at', type: 'timestamptz', default: () => 'now()' })
  lastFailedAt: Date;
}
