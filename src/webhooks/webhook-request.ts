import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { Request } from 'express';
import type { EntityManager } from 'typeorm';
import type { PaymentEvent } from './payment-event';

/**
 * What the webhook's guard and interceptor leave on the request for the
 * handler: the verified event (PaymentSignatureGuard) and the transaction the
 * processed-event record was written in (IdempotencyInterceptor). The request
 * object is the request context here: it lives exactly as long as the
 * delivery, and nothing else can reach it.
 */
export interface WebhookRequest extends Request {
  paymentEvent?: PaymentEvent;
  webhookManager?: EntityManager;
}

function required<T>(value: T | undefined, what: string): T {
  // Only reachable if the route lost its guard or interceptor: a programming error.
  if (value === undefined) throw new Error(`${what} missing from the webhook request`);
  return value;
}

/** The signature-verified event. */
export const VerifiedEvent = createParamDecorator((_data: unknown, ctx: ExecutionContext): PaymentEvent =>
  required(ctx.switchToHttp().getRequest<WebhookRequest>().paymentEvent, 'The verified event'),
);

/** The EntityManager of the transaction that holds this event's processed-event record. */
export const WebhookTransaction = createParamDecorator((_data: unknown, ctx: ExecutionContext): EntityManager =>
  required(ctx.switchToHttp().getRequest<WebhookRequest>().webhookManager, 'The webhook transaction'),
);
