import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Payment webhook bookkeeping. `processed_events.event_id` is the primary key
 * that makes processing exactly once: the row is inserted in the same
 * transaction as the event's effects. `webhook_failures` keeps one row per
 * failing event (its latest payload and error) for operators; it is written
 * outside the rolled-back transaction.
 */
export class Billing1763800001000 implements MigrationInterface {
  name = 'Billing1763800001000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE processed_events (
        event_id text PRIMARY KEY,
        event_type text NOT NULL,
        outcome text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`
      CREATE TABLE webhook_failures (
        event_id text PRIMARY KEY,
        event_type text NOT NULL,
        payload jsonb NOT NULL,
        error text NOT NULL,
        attempts integer NOT NULL DEFAULT 1,
        first_failed_at timestamptz NOT NULL DEFAULT now(),
        last_failed_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX webhook_failures_last_failed_at_idx ON webhook_failures (last_failed_at)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE webhook_failures`);
    await q.query(`DROP TABLE processed_events`);
  }
}
