import Stripe from 'stripe';
import type { AppConfig } from '../config/config';

/**
 * The provider's API client, or undefined when PAYMENT_SECRET_KEY is unset.
 * PAYMENT_API_BASE (scheme, host and port; the client adds `/v1/...`) points
 * it elsewhere, e.g. at a local fake in tests.
 */
export function createPaymentClient(config: AppConfig): Stripe | undefined {
  const { secretKey, apiBase } = config.payment;
  if (!secretKey) return undefined;
  const base = apiBase ? new URL(apiBase) : undefined;
  const protocol = base?.protocol === 'http:' ? 'http' : 'https';
  return new Stripe(secretKey, {
    ...(base ? { host: base.hostname, port: base.port ? Number(base.port) : protocol === 'http' ? 80 : 443, protocol } : {}),
    maxNetworkRetries: 1,
    timeout: 15_000,
    telemetry: false,
  });
}
