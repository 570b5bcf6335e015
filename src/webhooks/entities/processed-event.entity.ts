import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

/**
 * A payment event that has been processed (or ignored). The primary key on the
 * provider's event id is what makes processing exactly once: the row is
 * inserted in the same transaction as the event's effects.
 */
@Entity({ name: 'processed_events' })
export class ProcessedEvent {
  @PrimaryColumn({ name: 'event_id', type: 'text' })
  eventId: string;

  @Column({ name: 'event_type', type: 'text' })
  eventType: string;

  /** applied | ignored | team_not_found | out_of_order */
  @Column({ type: 'text' })
  outcome: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
