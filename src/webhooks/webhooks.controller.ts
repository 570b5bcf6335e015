import { Controller, HttpCode, Post, UseGuards, UseInterceptors } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiBody,
  ApiHeader,
  ApiInternalServerErrorResponse,
  ApiOkResponse,
  ApiOperation,
  ApiServiceUnavailableResponse,
  ApiTags,
} from '@nestjs/swagger';
import type { EntityManager } from 'typeorm';
import { Public } from '../common/auth/decorators';
import { ErrorBody } from '../common/http/openapi';
import { PaymentEventBody, WebhookAck } from './dto/webhook.dto';
import { IdempotencyInterceptor } from './idempotency.interceptor';
import type { PaymentEvent } from './payment-event';
import { PaymentSignatureGuard } from './payment-signature.guard';
import type { HandledEvent } from './processed-events.service';
import { VerifiedEvent, WebhookTransaction } from './webhook-request';
import { WebhooksService } from './webhooks.service';

@ApiTags('Webhooks')
@Controller('webhooks')
export class WebhooksController {
  constructor(private readonly webhooks: WebhooksService) {}

  /**
   * Guard: signature and payload checks. Interceptor: the exactly-once
   * transaction, whose manager the handler receives; it also turns the
   * handler's result into the `{status}` answer.
   */
  @Post('payment')
  @Public()
  @HttpCode(200)
  @UseGuards(PaymentSignatureGuard)
  @UseInterceptors(IdempotencyInterceptor)
  @ApiOperation({
    summary: 'Payment provider webhook receiver',
    description:
      'Called by the payment provider only; no bearer token: authenticity rests on the signature. Each event id is processed ' +
      'exactly once: a redelivery answers `already_processed`. When a handler fails, nothing of it is kept, the answer is 500 ' +
      'and the provider retries later.',
  })
  @ApiHeader({
    name: 'payment-signature',
    required: true,
    description:
      '`t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>" with PAYMENT_WEBHOOK_SECRET>` (several `v1` allowed; 300 s tolerance). ' +
      '`stripe-signature` is accepted as an alias.',
    example: 't=1763799000,v1=5257a869e7ecebeda32affa62cdca3fa51cad7e77a0e56ff536d0ce8e108d8bd',
  })
  @ApiBody({ type: PaymentEventBody, description: "The provider's event JSON, signed as sent" })
  @ApiOkResponse({
    type: WebhookAck,
    description: '`ok` (processed now), `already_processed` (a redelivery) or `ignored` (an unhandled type)',
  })
  @ApiBadRequestResponse({
    type: ErrorBody,
    description:
      '`Invalid signature` (missing, wrong or stale), then `Invalid payload` (not JSON, or no string `id`/`type`, or no object `data.object`)',
  })
  @ApiInternalServerErrorResponse({
    type: ErrorBody,
    description: '`Webhook handler failed`: rolled back and kept for operators; the provider retries',
  })
  @ApiServiceUnavailableResponse({ type: ErrorBody, description: '`Payment webhooks are not configured` (PAYMENT_WEBHOOK_SECRET unset)' })
  receive(@VerifiedEvent() event: PaymentEvent, @WebhookTransaction() manager: EntityManager): Promise<HandledEvent> {
    return this.webhooks.handle(event, manager);
  }
}
