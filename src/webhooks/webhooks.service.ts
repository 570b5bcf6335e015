import { Inject, Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { NotFound } from '../common/errors/errors';
import { APP_CONFIG, AppConfig } from '../config/config';
import { Team } from '../teams/entities/team.entity';
import { FREE_PLAN, planForPrice } from '../teams/plans';
import { TeamsService } from '../teams/teams.service';
import type { WebhookFailureView } from './dto/webhook.dto';
import { WebhookFailure } from './entities/webhook-failure.entity';
import { firstOf, idOf, JsonObject, metadataTeamId, obj, PaymentEvent, str, toPaymentEvent, unixDate } from './payment-event';
import { APPLIED_OUTCOME, HandledEvent, ProcessedEventsService, WebhookStatus } from './processed-events.service';

const APPLIED: HandledEvent = { status: 'ok', outcome: APPLIED_OUTCOME };
const IGNORED: HandledEvent = { status: 'ignored', outcome: 'ignored' };
const TEAM_NOT_FOUND: HandledEvent = { status: 'ok', outcome: 'team_not_found' };
const OUT_OF_ORDER: HandledEvent = { status: 'ok', outcome: 'out_of_order' };

interface TeamRefs {
  subscriptionId?: string;
  customerId?: string;
  teamId?: number;
}

/**
 * The effects of payment events on a team (CONTRACT §4), always inside the
 * transaction that records the event as processed; plus the operators'
 * failure list and replay.
 */
@Injectable()
export class WebhooksService {
  private readonly logger = new Logger(WebhooksService.name);

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly teams: TeamsService,
    private readonly processedEvents: ProcessedEventsService,
  ) {}

  /** Applies one event with `manager` (the exactly-once transaction). Throws to roll back and have it retried. */
  async handle(event: PaymentEvent, manager: EntityManager): Promise<HandledEvent> {
    switch (event.type) {
      case 'checkout.session.completed':
        return this.checkoutCompleted(event, manager);
      case 'customer.subscription.created':
      case 'customer.subscription.updated':
        return this.subscriptionChanged(event, manager);
      case 'customer.subscription.deleted':
        return this.subscriptionDeleted(event, manager);
      case 'invoice.paid':
        return this.invoicePaid(event, manager);
      case 'invoice.payment_failed':
        return this.invoicePaymentFailed(event, manager);
      default:
        // invoice.payment_succeeded included: period advancement keys off invoice.paid.
        return IGNORED;
    }
  }

  /** Kept failures, most recent first, each saying whether the event has been processed since. */
  async listFailures(): Promise<WebhookFailureView[]> {
    const rows = await this.dataSource
      .getRepository(WebhookFailure)
      .createQueryBuilder('f')
      .addSelect('EXISTS (SELECT 1 FROM processed_events p WHERE p.event_id = f.event_id)', 'processed')
      .orderBy('f.last_failed_at', 'DESC')
      .addOrderBy('f.event_id')
      .getRawAndEntities();
    return rows.entities.map((f, i) => ({
      event_id: f.eventId,
      type: f.eventType,
      error: f.error,
      attempts: f.attempts,
      first_failed_at: f.firstFailedAt.toISOString(),
      last_failed_at: f.lastFailedAt.toISOString(),
      processed: Boolean((rows.raw[i] as { processed: boolean }).processed),
      payload: f.payload,
    }));
  }

  /**
   * Processes a kept failure's payload again under the same exactly-once rule
   * (no signature check: the payload was verified when it arrived). Throws
   * NotFound for an id with no kept failure and WebhookHandlerFailed when the
   * handler fails again (the failure is updated).
   */
  async replay(eventId: string): Promise<{ status: WebhookStatus }> {
    const failure = await this.dataSource.getRepository(WebhookFailure).findOneBy({ eventId });
    if (!failure) throw new NotFound('Webhook failure');
    const event = toPaymentEvent(failure.payload);
    if (!event) throw new Error(`The kept payload of ${eventId} is not an event`);
    const status = await this.processedEvents.runOnce(event, (manager) => this.handle(event, manager));
    return { status };
  }

  private async checkoutCompleted(event: PaymentEvent, m: EntityManager): Promise<HandledEvent> {
    const session = event.data.object;
    const team = await this.lockTeam(m, { teamId: metadataTeamId(session) }, event);
    if (!team) return TEAM_NOT_FOUND;
    await m.update(Team, team.id, {
      ...defined({ paymentSubscriptionId: idOf(session.subscription), paymentCustomerId: idOf(session.customer) }),
      subscriptionStatus: 'active',
    });
    return APPLIED;
  }

  private async subscriptionChanged(event: PaymentEvent, m: EntityManager): Promise<HandledEvent> {
    const sub = event.data.object;
    const team = await this.lockTeam(m, this.subscriptionRefs(sub), event);
    if (!team) return TEAM_NOT_FOUND;
    if (this.isOutOfOrder(event, team)) return OUT_OF_ORDER;
    const item = firstOf(sub.items);
    const priceId = idOf(item?.price);
    const plan = priceId === undefined ? undefined : planForPrice(this.config, priceId);
    // An error, not a silent skip: the provider retries, so a corrected PAYMENT_PRICE_PLANS catches up.
    if (plan === undefined) throw new Error(`Unknown price id ${JSON.stringify(priceId ?? null)}: add it to PAYMENT_PRICE_PLANS`);
    // Newer API versions moved the period from the subscription to its items.
    const start = unixDate(sub.current_period_start) ?? unixDate(item?.current_period_start);
    const end = unixDate(sub.current_period_end) ?? unixDate(item?.current_period_end);
    await m.update(Team, team.id, {
      plan,
      ...defined({
        subscriptionStatus: str(sub.status),
        currentPeriodStart: start,
        currentPeriodEnd: end,
        cancelAtPeriodEnd: typeof sub.cancel_at_period_end === 'boolean' ? sub.cancel_at_period_end : undefined,
        // Link a team found by customer or metadata (subscription.created may arrive before checkout completes);
        // an existing link is only changed by checkout or deletion.
        paymentSubscriptionId: team.paymentSubscriptionId === null ? str(sub.id) : undefined,
        paymentCustomerId: team.paymentCustomerId === null ? idOf(sub.customer) : undefined,
        lastSubscriptionEventCreated: this.createdOf(event),
      }),
    });
    if (plan !== team.plan) await this.teams.resetUsage(m, team.id);
    return APPLIED;
  }

  private async subscriptionDeleted(event: PaymentEvent, m: EntityManager): Promise<HandledEvent> {
    const sub = event.data.object;
    const team = await this.lockTeam(m, this.subscriptionRefs(sub), event);
    if (!team) return TEAM_NOT_FOUND;
    if (this.isOutOfOrder(event, team)) return OUT_OF_ORDER;
    await m.update(Team, team.id, {
      plan: FREE_PLAN,
      subscriptionStatus: 'canceled',
      paymentSubscriptionId: null,
      cancelAtPeriodEnd: false,
      ...defined({ lastSubscriptionEventCreated: this.createdOf(event) }),
    });
    await this.teams.resetUsage(m, team.id);
    return APPLIED;
  }

  private async invoicePaid(event: PaymentEvent, m: EntityManager): Promise<HandledEvent> {
    const invoice = event.data.object;
    const team = await this.lockTeam(m, this.invoiceRefs(invoice), event);
    if (!team) return TEAM_NOT_FOUND;
    const period = obj(firstOf(invoice.lines)?.period);
    const start = unixDate(period?.start);
    const end = unixDate(period?.end);
    if (!start || !end) {
      this.logger.warn({ eventId: event.id, teamId: team.id }, 'Paid invoice without a line item period: billing period unchanged');
      return APPLIED;
    }
    await m.update(Team, team.id, { currentPeriodStart: start, currentPeriodEnd: end });
    return APPLIED;
  }

  private async invoicePaymentFailed(event: PaymentEvent, m: EntityManager): Promise<HandledEvent> {
    const team = await this.lockTeam(m, this.invoiceRefs(event.data.object), event);
    if (!team) return TEAM_NOT_FOUND;
    await m.update(Team, team.id, { subscriptionStatus: 'past_due' });
    return APPLIED;
  }

  private subscriptionRefs(sub: JsonObject): TeamRefs {
    return { subscriptionId: str(sub.id), customerId: idOf(sub.customer), teamId: metadataTeamId(sub) };
  }

  /** Older API versions name the subscription on the invoice; newer ones under parent.subscription_details. */
  private invoiceRefs(invoice: JsonObject): TeamRefs {
    const details = obj(obj(invoice.parent)?.subscription_details);
    return {
      subscriptionId: idOf(invoice.subscription) ?? idOf(details?.subscription),
      customerId: idOf(invoice.customer),
      teamId: metadataTeamId(invoice),
    };
  }

  /**
   * The team an event is about, locked for the rest of the transaction so
   * concurrent events for one team apply one after the other. Lookup order
   * (CONTRACT §4): subscription id, then customer id, then metadata.team_id.
   */
  private async lockTeam(m: EntityManager, refs: TeamRefs, event: PaymentEvent): Promise<Team | null> {
    const repo = m.getRepository(Team);
    const lock = { mode: 'pessimistic_write' as const };
    const order = { id: 'ASC' as const };
    let team: Team | null = null;
    if (refs.subscriptionId) team = await repo.findOne({ where: { paymentSubscriptionId: refs.subscriptionId }, order, lock });
    if (!team && refs.customerId) team = await repo.findOne({ where: { paymentCustomerId: refs.customerId }, order, lock });
    if (!team && refs.teamId !== undefined) team = await repo.findOne({ where: { id: refs.teamId }, lock });
    if (!team) this.logger.warn({ eventId: event.id, type: event.type }, 'No team matches this payment event: recorded, nothing changed');
    return team;
  }

  /** A subscription event created before the last one applied to the team must not overwrite newer state. */
  private isOutOfOrder(event: PaymentEvent, team: Team): boolean {
    const created = this.createdOf(event);
    const last = team.lastSubscriptionEventCreated;
    if (created === undefined || last === null || Number(created) >= Number(last)) return false;
    this.logger.warn({ eventId: event.id, type: event.type, teamId: team.id }, 'Older subscription event: recorded, state unchanged');
    return true;
  }

  private createdOf(event: PaymentEvent): string | undefined {
    // A safe integer only: String(1e308) is "1e+308", which the bigint column refused (a 500).
    return typeof event.created === 'number' && Number.isSafeInteger(event.created) && event.created >= 0 ? String(event.created) : undefined;
  }
}

/** The members whose value is not undefined (an absent field leaves the column as it is). */
function defined<T extends object>(values: T): Partial<T> {
  return Object.fromEntries(Object.entries(values).filter(([, v]) => v !== undefined)) as Partial<T>;
}
