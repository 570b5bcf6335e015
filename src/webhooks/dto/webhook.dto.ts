import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

class PaymentEventData {
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description:
      'The object the event is about: a checkout session (`subscription`, `customer`, `metadata.team_id`), a subscription ' +
      '(`id`, `customer`, `status`, `items.data[0].price.id`, `current_period_start/end`, `cancel_at_period_end`) or an invoice ' +
      '(`subscription` or `parent.subscription_details.subscription`, `customer`, `lines.data[0].period`)',
    example: { id: 'cs_test_a1', object: 'checkout.session', subscription: 'sub_123', customer: 'cus_123', metadata: { team_id: '1' } },
  })
  object: Record<string, unknown>;
}

/** The provider's event (documentation only: the body is verified as raw bytes, then parsed). */
export class PaymentEventBody {
  @ApiProperty({ example: 'evt_1QxYz2AbCdEfGh', description: 'The provider event id: processed at most once' })
  id: string;

  @ApiProperty({
    example: 'checkout.session.completed',
    description:
      'Handled: checkout.session.completed, customer.subscription.created, customer.subscription.updated, ' +
      'customer.subscription.deleted, invoice.paid, invoice.payment_failed. Every other type is ignored.',
  })
  type: string;

  @ApiPropertyOptional({ example: 1763799000, description: 'Unix seconds; older subscription events do not overwrite newer state' })
  created?: number;

  @ApiProperty({ type: PaymentEventData })
  data: PaymentEventData;
}

export class WebhookAck {
  @ApiProperty({ enum: ['ok', 'already_processed', 'ignored'], example: 'ok' })
  status: 'ok' | 'already_processed' | 'ignored';
}

/** A kept webhook failure, as the CLI lists it. */
export interface WebhookFailureView {
  event_id: string;
  type: string;
  error: string;
  attempts: number;
  first_failed_at: string;
  last_failed_at: string;
  /** Whether the event has been processed since (by a retry or a replay). */
  processed: boolean;
  payload: Record<string, unknown>;
}
