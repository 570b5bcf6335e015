import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { ApiError } from '../common/errors/errors';
import { MetricsService } from '../metrics/metrics.service';
import type { PaymentEvent } from './payment-event';

/** What a handler did with an event: the answer's `status` and the outcome kept in processed_events. */
export interface HandledEvent {
  status: 'ok' | 'ignored';
  /** applied | ignored | team_not_found | out_of_order */
  outcome: string;
}

/** The outcome of an event whose effects were applied. */
export const APPLIED_OUTCOME = 'applied';

export type WebhookStatus = 'ok' | 'already_processed' | 'ignored';

/** 500 `Webhook handler failed`: the provider retries; `reason` is for logs and the CLI, never the response. */
export class WebhookHandlerFailed extends ApiError {
  readonly status = 500;
  constructor(readonly reason: string) {
    super('Webhook handler failed');
  }
}

/**
 * Exactly-once processing of payment events, shared by the HTTP interceptor
 * and the CLI's replay.
 *
 * One READ COMMITTED transaction per delivery. Its first statement is
 * `INSERT INTO processed_events ... ON CONFLICT (event_id) DO NOTHING`; the
 * handler's changes follow on the same connection and commit together with
 * that row. A concurrent delivery of the same id (in this process or any
 * other on the same PostgreSQL) blocks on the primary-key index entry until
 * the first transaction ends: after a commit its insert does nothing and it
 * answers `already_processed` without running the handler; after a rollback
 * its insert succeeds and it processes the event itself. READ COMMITTED is
 * deliberate: under REPEATABLE READ or SERIALIZABLE the waiting insert would
 * fail with a serialization error instead of seeing the committed row.
 */
@Injectable()
export class ProcessedEventsService {
  private readonly logger = new Logger(ProcessedEventsService.name);

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly metrics: MetricsService,
  ) {}

  async runOnce(event: PaymentEvent, handler: (manager: EntityManager) => Promise<HandledEvent>): Promise<WebhookStatus> {
    let status: WebhookStatus;
    try {
      status = await this.dataSource.transaction('READ COMMITTED', async (manager) => {
        // Recorded as `applied` up front (the common case, saving a round trip); corrected below otherwise.
        const claimed: unknown[] = await manager.query(
          `INSERT INTO processed_events (event_id, event_type, outcome) VALUES ($1, $2, '${APPLIED_OUTCOME}')
           ON CONFLICT (event_id) DO NOTHING RETURNING event_id`,
          [event.id, event.type],
        );
        if (claimed.length === 0) return 'already_processed';
        const handled = await handler(manager);
        if (handled.outcome !== APPLIED_OUTCOME) {
          await manager.query(`UPDATE processed_events SET outcome = $2 WHERE event_id = $1`, [event.id, handled.outcome]);
        }
        return handled.status;
      });
    } catch (err) {
      // The transaction has rolled back: nothing of this attempt remains, so a retry starts afresh.
      const reason = err instanceof Error ? err.message : String(err);
      this.metrics.webhookEvents.inc({ outcome: 'failed' });
      this.logger.error({ eventId: event.id, type: event.type, reason }, 'Payment event handler failed; the provider will retry');
      await this.recordFailure(event, reason);
      throw new WebhookHandlerFailed(reason);
    }
    this.metrics.webhookEvents.inc({ outcome: status });
    this.logger.log({ eventId: event.id, type: event.type, status }, 'Payment event received');
    return status;
  }

  /**
   * Keeps the failed event for operators, outside the rolled-back transaction.
   * Best effort: if the database itself is what failed, the log line above is
   * all that remains, and the provider's retry still comes.
   */
  private async recordFailure(event: PaymentEvent, reason: string): Promise<void> {
    try {
      await this.dataSource.query(
        `INSERT INTO webhook_failures (event_id, event_type, payload, error)
         VALUES ($1, $2, $3::jsonb, $4)
         ON CONFLICT (event_id) DO UPDATE SET
           event_type = EXCLUDED.event_type, payload = EXCLUDED.payload, error = EXCLUDED.error,
           attempts = webhook_failures.attempts + 1, last_failed_at = now()`,
        [event.id, event.type, JSON.stringify(event), reason],
      );
    } catch (err) {
      this.logger.error(
        { eventId: event.id, err: err instanceof Error ? err.message : String(err) },
        'Could not record the webhook failure',
      );
    }
  }
}
