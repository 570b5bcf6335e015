import type { AppConfig, PlanLimits, UsageCounter } from '../config/config';

export const FREE_PLAN = 'Free';

const GIB = 1024 ** 3;

/** Built-in limits: Free has 1 GiB of storage, everything else is unlimited (null). */
const BUILT_IN: Record<string, PlanLimits> = {
  [FREE_PLAN]: { storage_bytes: GIB, files_uploaded: null, mcp_connection_tests: null },
};
const UNLIMITED: PlanLimits = { storage_bytes: null, files_uploaded: null, mcp_connection_tests: null };

/** A plan's limits: PLAN_LIMITS where it names the plan and counter, the built-in default otherwise. */
export function limitsFor(config: AppConfig, plan: string): PlanLimits {
  return { ...(BUILT_IN[plan] ?? UNLIMITED), ...(config.payment.planLimits[plan] ?? {}) };
}

export function limitOf(config: AppConfig, plan: string, counter: UsageCounter): number | null {
  return limitsFor(config, plan)[counter];
}

/** PAYMENT_PRICE_PLANS: provider price id → plan name (undefined for an unknown price). */
export function planForPrice(config: AppConfig, priceId: string): string | undefined {
  return config.payment.pricePlans.get(priceId);
}
