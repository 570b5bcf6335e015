import { Inject, Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import Stripe from 'stripe';
import { DataSource } from 'typeorm';
import { ApiError, ServiceUnavailable, ValidationFailed } from '../common/errors/errors';
import { APP_CONFIG, AppConfig } from '../config/config';
import { Team } from '../teams/entities/team.entity';
import { planForPrice } from '../teams/plans';
import type { CheckoutView, CreateCheckoutDto } from './dto/checkout.dto';
import { createPaymentClient } from './payment-client';

/** 502: the provider's API refused or did not answer; its message is logged, not echoed. */
export class PaymentProviderFailed extends ApiError {
  readonly status = 502;
  constructor() {
    super('Payment provider request failed');
  }
}

@Injectable()
export class BillingService {
  private readonly logger = new Logger(BillingService.name);
  private readonly client: Stripe | undefined;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    this.client = createPaymentClient(config);
  }

  /**
   * A hosted checkout session for one of the configured prices. The team id
   * travels in the session's metadata (and the subscription's, so later
   * subscription events find the team even before checkout completes).
   */
  async checkout(teamId: number, dto: CreateCheckoutDto): Promise<CheckoutView> {
    if (!this.client) throw new ServiceUnavailable('Billing is not configured');
    if (planForPrice(this.config, dto.price_id) === undefined) {
      throw ValidationFailed.one(['body', 'price_id'], 'Unknown price id: it is not listed in PAYMENT_PRICE_PLANS', 'value_error');
    }
    const team = await this.dataSource.getRepository(Team).findOneByOrFail({ id: teamId });
    const metadata = { team_id: String(team.id) };
    let session: Stripe.Checkout.Session;
    try {
      session = await this.client.checkout.sessions.create({
        mode: 'subscription',
        line_items: [{ price: dto.price_id, quantity: 1 }],
        success_url: dto.success_url,
        cancel_url: dto.cancel_url,
        client_reference_id: String(team.id),
        metadata,
        subscription_data: { metadata },
        ...(team.paymentCustomerId ? { customer: team.paymentCustomerId } : {}),
      });
    } catch (err) {
      this.logger.error({ err: err instanceof Error ? err.message : String(err), teamId }, 'Creating a checkout session failed');
      throw new PaymentProviderFailed();
    }
    if (!session.url) {
      this.logger.error({ sessionId: session.id, teamId }, 'The checkout session has no URL');
      throw new PaymentProviderFailed();
    }
    return { url: session.url };
  }
}
