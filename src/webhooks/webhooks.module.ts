import { Module } from '@nestjs/common';
import { IdempotencyInterceptor } from './idempotency.interceptor';
import { PaymentSignatureGuard } from './payment-signature.guard';
import { ProcessedEventsService } from './processed-events.service';
import { WebhooksController } from './webhooks.controller';
import { WebhooksService } from './webhooks.service';

/** The payment provider's webhook: verified, processed exactly once, failures kept for operators. */
@Module({
  controllers: [WebhooksController],
  providers: [WebhooksService, ProcessedEventsService, PaymentSignatureGuard, IdempotencyInterceptor],
  exports: [WebhooksService],
})
export class WebhooksModule {}
