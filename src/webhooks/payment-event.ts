/**
 * The provider's event as the receiver needs it: the checks of CONTRACT §4
 * (string `id`, string `type`, object `data.object`) and small readers for
 * the members the handlers use, which may be ids or expanded objects.
 */
export type JsonObject = Record<string, unknown>;

export interface PaymentEvent {
  id: string;
  type: string;
  /** Unix seconds when the provider created the event. */
  created?: number;
  data: { object: JsonObject };
  [member: string]: unknown;
}

export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The parsed body as an event, or undefined when it lacks the members every event has. */
export function toPaymentEvent(value: unknown): PaymentEvent | undefined {
  if (!isObject(value) || typeof value.id !== 'string' || value.id === '' || typeof value.type !== 'string') return undefined;
  if (!isObject(value.data) || !isObject(value.data.object)) return undefined;
  // PostgreSQL cannot store U+0000 (text or jsonb): such an event could be neither applied nor kept as a
  // failure, and every redelivery would answer 500 again. The provider never sends one.
  if (containsNul(value)) return undefined;
  return value as PaymentEvent;
}

function containsNul(value: unknown): boolean {
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const current = stack.pop();
    if (typeof current === 'string') {
      if (current.includes('\u0000')) return true;
    } else if (Array.isArray(current)) {
      stack.push(...current);
    } else if (current !== null && typeof current === 'object') {
      for (const [key, item] of Object.entries(current)) {
        if (key.includes('\u0000')) return true;
        stack.push(item);
      }
    }
  }
  return false;
}

export function str(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** A reference that is either an id string or an expanded object with an `id`. */
export function idOf(value: unknown): string | undefined {
  return str(value) ?? (isObject(value) ? str(value.id) : undefined);
}

export function obj(value: unknown): JsonObject | undefined {
  return isObject(value) ? value : undefined;
}

/** The first element of a list object (`{data: [...]}`) such as `items` or `lines`. */
export function firstOf(list: unknown): JsonObject | undefined {
  const data = obj(list)?.data;
  return Array.isArray(data) ? obj(data[0]) : undefined;
}

/** 9999-12-31T23:59:59Z. */
const MAX_UNIX_SECONDS = 253_402_300_799;

export function unixDate(value: unknown): Date | undefined {
  // Outside 1970..9999 is no real period and may not even be a valid timestamptz (the update failed: a 500).
  return typeof value === 'number' && value >= 0 && value <= MAX_UNIX_SECONDS ? new Date(value * 1000) : undefined;
}

/** `metadata.team_id`: a string holding a positive integer. */
export function metadataTeamId(object: JsonObject): number | undefined {
  const raw = obj(object.metadata)?.team_id;
  return typeof raw === 'string' && /^[1-9]\d{0,9}$/.test(raw) && Number(raw) <= 2_147_483_647 ? Number(raw) : undefined;
}
