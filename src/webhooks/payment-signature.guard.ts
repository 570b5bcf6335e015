import { CanActivate, ExecutionContext, Inject, Injectable } from '@nestjs/common';
import Stripe from 'stripe';
import { BadRequest, ServiceUnavailable } from '../common/errors/errors';
import { APP_CONFIG, AppConfig } from '../config/config';
import { MetricsService } from '../metrics/metrics.service';
import { toPaymentEvent } from './payment-event';
import type { WebhookRequest } from './webhook-request';

/** Seconds a signature's timestamp may be away from now (the provider's default). */
export const SIGNATURE_TOLERANCE_SECONDS = 300;

/**
 * Authenticity of a payment webhook, in CONTRACT §4's order and before any
 * handler or database work: 503 when no secret is configured, then 400
 * "Invalid signature", then 400 "Invalid payload". The verified event is left
 * on the request. `stripe-signature` is accepted as an alias so the provider
 * and its CLI work unchanged.
 */
@Injectable()
export class PaymentSignatureGuard implements CanActivate {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly metrics: MetricsService,
  ) {}

  canActivate(context: ExecutionContext): boolean {
    const req = context.switchToHttp().getRequest<WebhookRequest>();
    const secret = this.config.payment.webhookSecret;
    if (!secret) throw new ServiceUnavailable('Payment webhooks are not configured');
    const header = req.headers['payment-signature'] ?? req.headers['stripe-signature'];
    // app.ts mounts express.raw on this route: the body is the exact bytes that were signed.
    const body: Buffer = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
    if (typeof header !== 'string' || header.trim() === '') throw this.reject('invalid_signature', 'Invalid signature');
    // The library only rejects old timestamps; "outside tolerance" (CONTRACT §4) covers the future too.
    const timestamp = /(?:^|,)\s*t=(\d+)/.exec(header)?.[1];
    if (timestamp !== undefined && Number(timestamp) - Date.now() / 1000 > SIGNATURE_TOLERANCE_SECONDS) {
      throw this.reject('invalid_signature', 'Invalid signature');
    }
    let parsed: unknown;
    try {
      parsed = Stripe.webhooks.constructEvent(body, header, secret, SIGNATURE_TOLERANCE_SECONDS);
    } catch (err) {
      // constructEvent verifies first, then JSON.parses: only a SyntaxError means a signed bad body. It also
      // throws plain Errors for some malformed headers (an empty `v1=`: "secureCompare must receive two arguments").
      if (err instanceof SyntaxError) throw this.reject('invalid_payload', 'Invalid payload');
      throw this.reject('invalid_signature', 'Invalid signature');
    }
    const event = toPaymentEvent(parsed);
    if (!event) throw this.reject('invalid_payload', 'Invalid payload');
    req.paymentEvent = event;
    return true;
  }

  private reject(outcome: 'invalid_signature' | 'invalid_payload', detail: string): BadRequest {
    this.metrics.webhookEvents.inc({ outcome });
    return new BadRequest(detail);
  }
}
