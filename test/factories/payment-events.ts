import { randomBytes } from 'node:crypto';
import Stripe from 'stripe';
import request from 'supertest';

export const WEBHOOK_SECRET = 'whsec_test_0123456789abcdefghijklmnop';

let sequence = 0;
export const eventId = () => `evt_test_${Date.now().toString(36)}${(++sequence).toString(36)}${randomBytes(4).toString('hex')}`;
export const uniqueId = (prefix: string) => `${prefix}_${(++sequence).toString(36)}${randomBytes(4).toString('hex')}`;

export interface SignOptions {
  secret?: string;
  /** Unix seconds in the signature (default now). */
  timestamp?: number;
  header?: 'payment-signature' | 'stripe-signature';
}

/** A delivery as the provider makes it: the body exactly as signed, with the signature header. */
export function deliver(target: Parameters<typeof request>[0], payload: object | string, options: SignOptions = {}) {
  const body = typeof payload === 'string' ? payload : JSON.stringify(payload);
  const signature = Stripe.webhooks.generateTestHeaderString({
    payload: body,
    secret: options.secret ?? WEBHOOK_SECRET,
    timestamp: options.timestamp,
  });
  return request(target)
    .post('/api/webhooks/payment')
    .set('Content-Type', 'application/json')
    .set(options.header ?? 'payment-signature', signature)
    .send(body);
}

export interface PaymentEventFixture {
  id: string;
  object: 'event';
  type: string;
  created: number;
  livemode: false;
  data: { object: Record<string, unknown> };
}

export function event(type: string, object: Record<string, unknown>, created = Math.floor(Date.now() / 1000)): PaymentEventFixture {
  return { id: eventId(), object: 'event', type, created, livemode: false, data: { object } };
}

export function checkoutCompleted(teamId: number | string, subscription: string, customer: string): PaymentEventFixture {
  return event('checkout.session.completed', {
    id: uniqueId('cs_test'),
    object: 'checkout.session',
    mode: 'subscription',
    subscription,
    customer,
    metadata: { team_id: String(teamId) },
  });
}

export interface SubscriptionOptions {
  id: string;
  customer: string;
  price: string;
  status?: string;
  start?: number;
  end?: number;
  cancelAtPeriodEnd?: boolean;
  /** Newer API versions carry the period on the subscription item, not the subscription. */
  shape?: 'older' | 'newer';
  metadata?: Record<string, string>;
  created?: number;
}

export function subscription(type: string, o: SubscriptionOptions): PaymentEventFixture {
  const period = { current_period_start: o.start ?? 1763000000, current_period_end: o.end ?? 1765592000 };
  const newer = o.shape === 'newer';
  return event(
    type,
    {
      id: o.id,
      object: 'subscription',
      customer: o.customer,
      status: o.status ?? 'active',
      cancel_at_period_end: o.cancelAtPeriodEnd ?? false,
      metadata: o.metadata ?? {},
      ...(newer ? {} : period),
      items: {
        object: 'list',
        data: [
          {
            id: uniqueId('si'),
            object: 'subscription_item',
            price: { id: o.price, object: 'price' },
            quantity: 1,
            ...(newer ? period : {}),
          },
        ],
      },
    },
    o.created,
  );
}

export interface InvoiceOptions {
  subscription?: string;
  customer: string;
  start?: number;
  end?: number;
  shape?: 'older' | 'newer';
  metadata?: Record<string, string>;
}

export function invoice(type: string, o: InvoiceOptions): PaymentEventFixture {
  const newer = o.shape === 'newer';
  return event(type, {
    id: uniqueId('in'),
    object: 'invoice',
    customer: o.customer,
    metadata: o.metadata ?? {},
    ...(newer
      ? { parent: { type: 'subscription_details', subscription_details: { subscription: o.subscription ?? null, metadata: {} } } }
      : { subscription: o.subscription ?? null }),
    lines: {
      object: 'list',
      data: [{ id: uniqueId('il'), object: 'line_item', period: { start: o.start ?? 1765592000, end: o.end ?? 1768270400 } }],
    },
  });
}
