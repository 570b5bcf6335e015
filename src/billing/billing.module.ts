import { Module } from '@nestjs/common';
import { BillingController } from './billing.controller';
import { BillingService } from './billing.service';

/** Checkout sessions with the payment provider. Its events come back through the webhooks module. */
@Module({
  controllers: [BillingController],
  providers: [BillingService],
})
export class BillingModule {}
