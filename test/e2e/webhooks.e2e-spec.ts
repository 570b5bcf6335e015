import type { NestExpressApplication } from '@nestjs/platform-express';
import Stripe from 'stripe';
import request from 'supertest';
import { WebhookHandlerFailed } from '../../src/webhooks/processed-events.service';
import { WebhooksService } from '../../src/webhooks/webhooks.service';
import { checkoutCompleted, deliver, event, invoice, subscription, uniqueId, WEBHOOK_SECRET } from '../factories/payment-events';
import { createSecondInstance } from '../setup/shared-database';
import { createTestApp, TestApp, TestUser } from '../setup/test-app';

const ENV = {
  PAYMENT_WEBHOOK_SECRET: WEBHOOK_SECRET,
  PAYMENT_PRICE_PLANS: 'price_pro=Pro,price_team=Team',
  PLAN_LIMITS: '{"Pro":{"files_uploaded":1000}}',
};

interface TeamRow {
  plan: string;
  subscription_status: string | null;
  current_period_start: Date | null;
  current_period_end: Date | null;
  cancel_at_period_end: boolean;
  payment_customer_id: string | null;
  payment_subscription_id: string | null;
  usage_storage_bytes: string;
  usage_files_uploaded: string;
  usage_mcp_connection_tests: string;
}

const iso = (unix: number) => new Date(unix * 1000).toISOString();

describe('Payment webhook', () => {
  let t: TestApp;
  let url: string;

  beforeAll(async () => {
    t = await createTestApp(ENV);
    // Listening once lets many requests run at the same time (supertest would listen per request).
    await t.app.listen(0, '127.0.0.1');
    url = await t.app.getUrl();
  });
  afterAll(() => t.close());

  const team = async (id: number): Promise<TeamRow> =>
    ((await t.dataSource.query(`SELECT * FROM teams WHERE id = $1`, [id])) as TeamRow[])[0];
  const processed = async (id: string) =>
    (await t.dataSource.query(`SELECT event_id, event_type, outcome FROM processed_events WHERE event_id = $1`, [id])) as {
      event_id: string;
      event_type: string;
      outcome: string;
    }[];
  const setUsage = (id: number, storage: number, files: number, tests: number) =>
    t.dataSource.query(
      `UPDATE teams SET usage_storage_bytes = $2, usage_files_uploaded = $3, usage_mcp_connection_tests = $4 WHERE id = $1`,
      [id, storage, files, tests],
    );
  /** storage_bytes after a reset: recomputed from the files table once that module exists, unchanged before. */
  const storageAfterReset = async (id: number, before: number) => {
    const [{ files }] = (await t.dataSource.query(`SELECT to_regclass('public.files')::text AS files`)) as { files: string | null }[];
    if (!files) return before;
    const [{ sum }] = (await t.dataSource.query(`SELECT COALESCE(sum(size), 0)::text AS sum FROM files WHERE team_id = $1`, [id])) as {
      sum: string;
    }[];
    return Number(sum);
  };
  /** A member's team linked to a subscription and customer through checkout. */
  const subscribedTeam = async (): Promise<{ user: TestUser; sub: string; cus: string }> => {
    const user = await t.createUser();
    const sub = uniqueId('sub');
    const cus = uniqueId('cus');
    const res = await deliver(url, checkoutCompleted(user.teamId, sub, cus));
    expect(res.body).toEqual({ status: 'ok' });
    return { user, sub, cus };
  };

  describe('signature and payload checks', () => {
    const valid = () => event('checkout.session.completed', { id: 'cs_1', metadata: { team_id: '1' } });

    it('answers 400 "Invalid signature" without a signature header', async () => {
      const e = valid();
      const res = await request(url).post('/api/webhooks/payment').set('Content-Type', 'application/json').send(JSON.stringify(e));
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ detail: 'Invalid signature' });
      expect(await processed(e.id)).toEqual([]);
    });

    it('answers 400 "Invalid signature" for a signature made with another secret', async () => {
      const e = valid();
      const res = await deliver(url, e, { secret: 'whsec_someone_else' });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ detail: 'Invalid signature' });
      expect(await processed(e.id)).toEqual([]);
    });

    it('answers 400 "Invalid signature" for a timestamp more than 300 s old', async () => {
      const e = valid();
      const res = await deliver(url, e, { timestamp: Math.floor(Date.now() / 1000) - 301 });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ detail: 'Invalid signature' });
      expect(await processed(e.id)).toEqual([]);
    });

    it('answers 400 "Invalid signature" for a timestamp more than 300 s in the future, and accepts one within tolerance', async () => {
      const future = valid();
      const res = await deliver(url, future, { timestamp: Math.floor(Date.now() / 1000) + 400 });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ detail: 'Invalid signature' });
      expect(await processed(future.id)).toEqual([]);
      const recent = event('some.unhandled.type', { id: 'x_recent' });
      const ok = await deliver(url, recent, { timestamp: Math.floor(Date.now() / 1000) - 240 });
      expect(ok.status).toBe(200);
      expect(ok.body).toEqual({ status: 'ignored' });
    });

    it('answers 400 "Invalid signature" for a garbled header and for a body changed after signing', async () => {
      const garbled = await request(url)
        .post('/api/webhooks/payment')
        .set('payment-signature', 'nonsense')
        .set('Content-Type', 'application/json')
        .send('{}');
      expect(garbled.status).toBe(400);
      expect(garbled.body).toEqual({ detail: 'Invalid signature' });
      const body = JSON.stringify(valid());
      const header = Stripe.webhooks.generateTestHeaderString({ payload: body, secret: WEBHOOK_SECRET });
      const tampered = await request(url)
        .post('/api/webhooks/payment')
        .set('payment-signature', header)
        .set('Content-Type', 'application/json')
        .send(body.replace('"team_id":"1"', '"team_id":"2"'));
      expect(tampered.status).toBe(400);
      expect(tampered.body).toEqual({ detail: 'Invalid signature' });
    });

    it('checks the signature before the payload: an unsigned non-JSON body is "Invalid signature"', async () => {
      const res = await request(url)
        .post('/api/webhooks/payment')
        .set('payment-signature', 't=1,v1=00')
        .set('Content-Type', 'application/json')
        .send('not json');
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ detail: 'Invalid signature' });
    });

    it('accepts the stripe-signature header as an alias, and a header with several v1 signatures', async () => {
      const e = event('some.unhandled.type', { id: 'x_1' });
      const res = await deliver(url, e, { header: 'stripe-signature' });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ status: 'ignored' });

      const other = event('some.unhandled.type', { id: 'x_2' });
      const body = JSON.stringify(other);
      const good = Stripe.webhooks.generateTestHeaderString({ payload: body, secret: WEBHOOK_SECRET });
      const [t0, v1] = good.split(',');
      const several = await request(url)
        .post('/api/webhooks/payment')
        .set('payment-signature', `${t0},v1=${'0'.repeat(64)},${v1}`)
        .set('Content-Type', 'application/json')
        .send(body);
      expect(several.status).toBe(200);
      expect(several.body).toEqual({ status: 'ignored' });
    });

    it.each([
      ['a body that is not JSON', 'not json {'],
      ['a JSON array', '[1,2]'],
      ['no id', JSON.stringify({ type: 'invoice.paid', data: { object: {} } })],
      ['an id that is not a string', JSON.stringify({ id: 42, type: 'invoice.paid', data: { object: {} } })],
      ['no type', JSON.stringify({ id: 'evt_no_type', data: { object: {} } })],
      ['a type that is not a string', JSON.stringify({ id: 'evt_type_num', type: 7, data: { object: {} } })],
      ['no data', JSON.stringify({ id: 'evt_no_data', type: 'invoice.paid' })],
      ['no data.object', JSON.stringify({ id: 'evt_no_object', type: 'invoice.paid', data: {} })],
      ['a data.object that is not an object', JSON.stringify({ id: 'evt_obj_str', type: 'invoice.paid', data: { object: 'in_1' } })],
      ['a data.object that is an array', JSON.stringify({ id: 'evt_obj_arr', type: 'invoice.paid', data: { object: [] } })],
      ['an empty body', ''],
    ])('answers 400 "Invalid payload" for a correctly signed body with %s', async (_name, body) => {
      const res = await deliver(url, body);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ detail: 'Invalid payload' });
    });

    it('needs no bearer token, and a bearer token does not replace the signature', async () => {
      const e = valid();
      const res = await request(url)
        .post('/api/webhooks/payment')
        .set('Authorization', t.admin.auth)
        .set('Content-Type', 'application/json')
        .send(JSON.stringify(e));
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ detail: 'Invalid signature' });
    });

    describe('events', () => {
      it('checkout.session.completed links the subscription and customer to metadata.team_id and marks it active', async () => {
        const user = await t.createUser();
        const e = checkoutCompleted(user.teamId, 'sub_checkout_1', 'cus_checkout_1');
        const res = await deliver(url, e);
        expect(res.status).toBe(200);
        expect(res.body).toEqual({ status: 'ok' });
        const row = await team(user.teamId);
        expect(row).toMatchObject({
          plan: 'Free',
          subscription_status: 'active',
          payment_subscription_id: 'sub_checkout_1',
          payment_customer_id: 'cus_checkout_1',
        });
        expect(await processed(e.id)).toEqual([{ event_id: e.id, event_type: 'checkout.session.completed', outcome: 'applied' }]);
        const view = await request(url).get('/api/team').set('Authorization', user.auth);
        expect(view.body).toMatchObject({
          subscription_status: 'active',
          payment_subscription_id: 'sub_checkout_1',
          payment_customer_id: 'cus_checkout_1',
        });
      });

      it('customer.subscription.created resolves the plan from the price id, sets status, period, cancel-at-period-end, and resets usage (plan changed)', async () => {
        const { user, sub, cus } = await subscribedTeam();
        await setUsage(user.teamId, 5000, 7, 3);
        const e = subscription('customer.subscription.created', {
          id: sub,
          customer: cus,
          price: 'price_pro',
          status: 'trialing',
          start: 1763000000,
          end: 1765592000,
          cancelAtPeriodEnd: true,
        });
        const res = await deliver(url, e);
        expect(res.body).toEqual({ status: 'ok' });
        const view = await request(url).get('/api/team').set('Authorization', user.auth);
        expect(view.body).toEqual({
          id: user.teamId,
          name: expect.any(String),
          plan: 'Pro',
          subscription_status: 'trialing',
          current_period_start: iso(1763000000),
          current_period_end: iso(1765592000),
          cancel_at_period_end: true,
          payment_customer_id: cus,
          payment_subscription_id: sub,
          usage: { storage_bytes: await storageAfterReset(user.teamId, 5000), files_uploaded: 0, mcp_connection_tests: 0 },
          limits: { storage_bytes: null, files_uploaded: 1000, mcp_connection_tests: null },
        });
      });

      it('customer.subscription.updated in the newer API shape takes the period from the first subscription item', async () => {
        const { user, sub, cus } = await subscribedTeam();
        const e = subscription('customer.subscription.updated', {
          id: sub,
          customer: cus,
          price: 'price_team',
          shape: 'newer',
          start: 1764000000,
          end: 1766592000,
        });
        expect(e.data.object.current_period_start).toBeUndefined();
        expect((await deliver(url, e)).body).toEqual({ status: 'ok' });
        const row = await team(user.teamId);
        expect(row.plan).toBe('Team');
        expect(row.subscription_status).toBe('active');
        expect(row.current_period_start?.toISOString()).toBe(iso(1764000000));
        expect(row.current_period_end?.toISOString()).toBe(iso(1766592000));
        expect(row.cancel_at_period_end).toBe(false);
      });

      it('resets usage only when the plan changes', async () => {
        const { user, sub, cus } = await subscribedTeam();
        expect(
          (await deliver(url, subscription('customer.subscription.created', { id: sub, customer: cus, price: 'price_pro' }))).body,
        ).toEqual({ status: 'ok' });
        await setUsage(user.teamId, 4000, 9, 4);
        // Same plan: a status and cancellation change only.
        const same = subscription('customer.subscription.updated', {
          id: sub,
          customer: cus,
          price: 'price_pro',
          status: 'active',
          cancelAtPeriodEnd: true,
        });
        expect((await deliver(url, same)).body).toEqual({ status: 'ok' });
        let row = await team(user.teamId);
        expect(row).toMatchObject({
          plan: 'Pro',
          cancel_at_period_end: true,
          usage_storage_bytes: '4000',
          usage_files_uploaded: '9',
          usage_mcp_connection_tests: '4',
        });
        // Plan change: counters reset.
        const upgrade = subscription('customer.subscription.updated', { id: sub, customer: cus, price: 'price_team' });
        expect((await deliver(url, upgrade)).body).toEqual({ status: 'ok' });
        row = await team(user.teamId);
        expect(row.plan).toBe('Team');
        expect(row.usage_files_uploaded).toBe('0');
        expect(row.usage_mcp_connection_tests).toBe('0');
        expect(Number(row.usage_storage_bytes)).toBe(await storageAfterReset(user.teamId, 4000));
      });

      it('customer.subscription.deleted reverts to Free, canceled, unlinks the subscription and resets usage', async () => {
        const { user, sub, cus } = await subscribedTeam();
        expect(
          (await deliver(url, subscription('customer.subscription.created', { id: sub, customer: cus, price: 'price_team' }))).body,
        ).toEqual({ status: 'ok' });
        await setUsage(user.teamId, 3000, 2, 8);
        const e = subscription('customer.subscription.deleted', { id: sub, customer: cus, price: 'price_team', status: 'canceled' });
        expect((await deliver(url, e)).body).toEqual({ status: 'ok' });
        const view = await request(url).get('/api/team').set('Authorization', user.auth);
        expect(view.body).toMatchObject({
          plan: 'Free',
          subscription_status: 'canceled',
          payment_subscription_id: null,
          payment_customer_id: cus,
          usage: { storage_bytes: await storageAfterReset(user.teamId, 3000), files_uploaded: 0, mcp_connection_tests: 0 },
          limits: { storage_bytes: 1073741824, files_uploaded: null, mcp_connection_tests: null },
        });
      });

      it('invoice.paid (older shape: invoice.subscription) advances the period from the first line item, status unchanged', async () => {
        const { user, sub, cus } = await subscribedTeam();
        const e = invoice('invoice.paid', { subscription: sub, customer: cus, start: 1765592000, end: 1768270400 });
        expect((await deliver(url, e)).body).toEqual({ status: 'ok' });
        const row = await team(user.teamId);
        expect(row.current_period_start?.toISOString()).toBe(iso(1765592000));
        expect(row.current_period_end?.toISOString()).toBe(iso(1768270400));
        expect(row.subscription_status).toBe('active');
        expect(row.plan).toBe('Free');
      });

      it('invoice.paid (newer shape: parent.subscription_details.subscription) finds the team by that subscription', async () => {
        const { user, sub } = await subscribedTeam();
        // A customer id no team has: only the subscription id can find the team.
        const e = invoice('invoice.paid', {
          subscription: sub,
          customer: 'cus_nobody',
          shape: 'newer',
          start: 1770000000,
          end: 1772592000,
        });
        expect(e.data.object.subscription).toBeUndefined();
        expect((await deliver(url, e)).body).toEqual({ status: 'ok' });
        const row = await team(user.teamId);
        expect(row.current_period_start?.toISOString()).toBe(iso(1770000000));
        expect(row.current_period_end?.toISOString()).toBe(iso(1772592000));
      });

      it('invoice.payment_failed marks the subscription past_due, nothing else', async () => {
        const { user, sub, cus } = await subscribedTeam();
        await setUsage(user.teamId, 10, 1, 1);
        expect((await deliver(url, invoice('invoice.payment_failed', { subscription: sub, customer: cus }))).body).toEqual({
          status: 'ok',
        });
        expect(await team(user.teamId)).toMatchObject({
          subscription_status: 'past_due',
          plan: 'Free',
          usage_files_uploaded: '1',
          payment_subscription_id: sub,
        });
      });

      it('ignores invoice.payment_succeeded (recorded: a redelivery is already_processed)', async () => {
        const { user, sub, cus } = await subscribedTeam();
        const before = await team(user.teamId);
        const e = invoice('invoice.payment_succeeded', { subscription: sub, customer: cus, start: 1780000000, end: 1782592000 });
        const res = await deliver(url, e);
        expect(res.status).toBe(200);
        expect(res.body).toEqual({ status: 'ignored' });
        expect(await team(user.teamId)).toEqual(before);
        expect(await processed(e.id)).toEqual([{ event_id: e.id, event_type: 'invoice.payment_succeeded', outcome: 'ignored' }]);
        const again = await deliver(url, e);
        expect(again.status).toBe(200);
        expect(again.body).toEqual({ status: 'already_processed' });
      });

      it('ignores any other event type with 200 "ignored"', async () => {
        const e = event('customer.created', { id: 'cus_new', object: 'customer' });
        const res = await deliver(url, e);
        expect(res.status).toBe(200);
        expect(res.body).toEqual({ status: 'ignored' });
        expect((await deliver(url, e)).body).toEqual({ status: 'already_processed' });
      });

      it('answers already_processed to a redelivery and does not apply it again', async () => {
        const { user, sub, cus } = await subscribedTeam();
        const e = subscription('customer.subscription.updated', { id: sub, customer: cus, price: 'price_pro' });
        expect((await deliver(url, e)).body).toEqual({ status: 'ok' });
        await setUsage(user.teamId, 100, 6, 6);
        await t.dataSource.query(`UPDATE teams SET plan = 'Free' WHERE id = $1`, [user.teamId]);
        const again = await deliver(url, e);
        expect(again.status).toBe(200);
        expect(again.body).toEqual({ status: 'already_processed' });
        // Applied again it would have set Pro and reset the counters.
        expect(await team(user.teamId)).toMatchObject({ plan: 'Free', usage_files_uploaded: '6', usage_mcp_connection_tests: '6' });
      });

      it('finds the team by subscription id first, then customer id, then metadata.team_id', async () => {
        const a = await subscribedTeam();
        const b = await subscribedTeam();
        const c = await t.createUser();
        // Subscription of A, customer of B: A wins.
        const bySub = invoice('invoice.payment_failed', { subscription: a.sub, customer: b.cus, metadata: { team_id: String(c.teamId) } });
        expect((await deliver(url, bySub)).body).toEqual({ status: 'ok' });
        expect((await team(a.user.teamId)).subscription_status).toBe('past_due');
        expect((await team(b.user.teamId)).subscription_status).toBe('active');
        // Unknown subscription, customer of B: B.
        const byCustomer = invoice('invoice.payment_failed', {
          subscription: 'sub_unknown',
          customer: b.cus,
          metadata: { team_id: String(c.teamId) },
        });
        expect((await deliver(url, byCustomer)).body).toEqual({ status: 'ok' });
        expect((await team(b.user.teamId)).subscription_status).toBe('past_due');
        expect((await team(c.teamId)).subscription_status).toBeNull();
        // Neither known: metadata.team_id names C; a subscription event links C to it.
        const subId = uniqueId('sub');
        const byMetadata = subscription('customer.subscription.created', {
          id: subId,
          customer: 'cus_unknown_c',
          price: 'price_pro',
          metadata: { team_id: String(c.teamId) },
        });
        expect((await deliver(url, byMetadata)).body).toEqual({ status: 'ok' });
        expect(await team(c.teamId)).toMatchObject({
          plan: 'Pro',
          subscription_status: 'active',
          payment_subscription_id: subId,
          payment_customer_id: 'cus_unknown_c',
        });
      });

      it('records an event for no known team, answers ok and changes nothing', async () => {
        const before = (await t.dataSource.query(`SELECT * FROM teams ORDER BY id`)) as unknown[];
        const events = [
          checkoutCompleted(999999, 'sub_x', 'cus_x'),
          event('checkout.session.completed', { id: 'cs_no_meta', subscription: 'sub_y', customer: 'cus_y' }),
          subscription('customer.subscription.updated', { id: 'sub_nobody', customer: 'cus_nobody', price: 'price_unknown' }),
          invoice('invoice.paid', { subscription: 'sub_nobody', customer: 'cus_nobody' }),
        ];
        for (const e of events) {
          const res = await deliver(url, e);
          expect(res.status).toBe(200);
          expect(res.body).toEqual({ status: 'ok' });
          expect(await processed(e.id)).toEqual([{ event_id: e.id, event_type: e.type, outcome: 'team_not_found' }]);
          expect((await deliver(url, e)).body).toEqual({ status: 'already_processed' });
        }
        expect(await t.dataSource.query(`SELECT * FROM teams ORDER BY id`)).toEqual(before);
      });

      it('does not let an older subscription event overwrite newer state (recorded, answered ok)', async () => {
        const { user, sub, cus } = await subscribedTeam();
        const newer = subscription('customer.subscription.updated', {
          id: sub,
          customer: cus,
          price: 'price_team',
          status: 'active',
          created: 1763802000,
        });
        const older = subscription('customer.subscription.updated', {
          id: sub,
          customer: cus,
          price: 'price_pro',
          status: 'past_due',
          created: 1763801000,
        });
        const olderDelete = subscription('customer.subscription.deleted', {
          id: sub,
          customer: cus,
          price: 'price_pro',
          status: 'canceled',
          created: 1763801500,
        });
        expect((await deliver(url, newer)).body).toEqual({ status: 'ok' });
        await setUsage(user.teamId, 0, 5, 5);
        for (const e of [older, olderDelete]) {
          const res = await deliver(url, e);
          expect(res.status).toBe(200);
          expect(res.body).toEqual({ status: 'ok' });
          expect(await processed(e.id)).toEqual([{ event_id: e.id, event_type: e.type, outcome: 'out_of_order' }]);
        }
        expect(await team(user.teamId)).toMatchObject({
          plan: 'Team',
          subscription_status: 'active',
          payment_subscription_id: sub,
          usage_files_uploaded: '5',
        });
        // A later one applies.
        const later = subscription('customer.subscription.updated', {
          id: sub,
          customer: cus,
          price: 'price_pro',
          status: 'active',
          created: 1763803000,
        });
        expect((await deliver(url, later)).body).toEqual({ status: 'ok' });
        expect((await team(user.teamId)).plan).toBe('Pro');
      });
    });

    describe('handler failures', () => {
      it('rolls back an unknown price id with 500, keeps the failure, and the retry catches up once the configuration is fixed', async () => {
        const { user, sub, cus } = await subscribedTeam();
        await setUsage(user.teamId, 0, 4, 4);
        const before = await team(user.teamId);
        const e = subscription('customer.subscription.updated', {
          id: sub,
          customer: cus,
          price: 'price_enterprise',
          status: 'active',
          created: 1763900000,
        });
        const res = await deliver(url, e);
        expect(res.status).toBe(500);
        expect(res.body).toEqual({ detail: 'Webhook handler failed' });
        expect(await team(user.teamId)).toEqual(before);
        expect(await processed(e.id)).toEqual([]);
        const [kept] = (await t.dataSource.query(`SELECT * FROM webhook_failures WHERE event_id = $1`, [e.id])) as Record<
          string,
          unknown
        >[];
        expect(kept).toMatchObject({ event_id: e.id, event_type: 'customer.subscription.updated', attempts: 1, payload: e });
        expect(kept.error).toContain('price_enterprise');
        expect(kept.last_failed_at).toBeInstanceOf(Date);

        // The provider retries: still failing, the failure is updated, not duplicated.
        expect((await deliver(url, e)).status).toBe(500);
        expect(await t.dataSource.query(`SELECT attempts FROM webhook_failures WHERE event_id = $1`, [e.id])).toEqual([{ attempts: 2 }]);

        // The operator fixes PAYMENT_PRICE_PLANS (here: the running config) and the next retry applies the event.
        t.config.payment.pricePlans.set('price_enterprise', 'Enterprise');
        try {
          const retry = await deliver(url, e);
          expect(retry.status).toBe(200);
          expect(retry.body).toEqual({ status: 'ok' });
          expect(await team(user.teamId)).toMatchObject({ plan: 'Enterprise', usage_files_uploaded: '0', usage_mcp_connection_tests: '0' });
          expect((await deliver(url, e)).body).toEqual({ status: 'already_processed' });
          const failures = await t.app.get(WebhooksService).listFailures();
          expect(failures.find((f) => f.event_id === e.id)).toMatchObject({
            type: 'customer.subscription.updated',
            attempts: 2,
            processed: true,
          });
        } finally {
          t.config.payment.pricePlans.delete('price_enterprise');
        }
      });

      it('replays a kept failure (the CLI path) under the same exactly-once rule', async () => {
        const { user, sub, cus } = await subscribedTeam();
        const service = t.app.get(WebhooksService);
        const e = subscription('customer.subscription.updated', { id: sub, customer: cus, price: 'price_business', status: 'active' });
        expect((await deliver(url, e)).status).toBe(500);
        const listed = (await service.listFailures()).find((f) => f.event_id === e.id);
        expect(listed).toEqual({
          event_id: e.id,
          type: 'customer.subscription.updated',
          error: expect.stringContaining('price_business'),
          attempts: 1,
          first_failed_at: expect.any(String),
          last_failed_at: expect.any(String),
          processed: false,
          payload: e,
        });
        await expect(service.replay(e.id)).rejects.toBeInstanceOf(WebhookHandlerFailed);
        await expect(service.replay('evt_never_seen')).rejects.toThrow('Webhook failure not found');

        t.config.payment.pricePlans.set('price_business', 'Business');
        try {
          expect(await service.replay(e.id)).toEqual({ status: 'ok' });
          expect((await team(user.teamId)).plan).toBe('Business');
          expect(await service.replay(e.id)).toEqual({ status: 'already_processed' });
          expect((await deliver(url, e)).body).toEqual({ status: 'already_processed' });
          expect((await service.listFailures()).find((f) => f.event_id === e.id)).toMatchObject({ attempts: 2, processed: true });
        } finally {
          t.config.payment.pricePlans.delete('price_business');
        }
      });

      it('counts webhook outcomes in /metrics', async () => {
        const res = await request(url).get('/metrics');
        expect(res.status).toBe(200);
        for (const outcome of ['ok', 'already_processed', 'ignored', 'invalid_signature', 'invalid_payload', 'failed']) {
          expect(res.text).toMatch(new RegExp(`payment_webhook_events_total\\{outcome="${outcome}"\\} [1-9]`));
        }
      });
    });

    describe('concurrent deliveries of one event', () => {
      it('25 simultaneous deliveries to one instance: exactly one ok, 24 already_processed, applied once', async () => {
        const { user, sub, cus } = await subscribedTeam();
        await setUsage(user.teamId, 0, 3, 3);
        const handle = jest.spyOn(t.app.get(WebhooksService), 'handle');
        try {
          const e = subscription('customer.subscription.updated', { id: sub, customer: cus, price: 'price_team' });
          const responses = await Promise.all(Array.from({ length: 25 }, () => deliver(url, e)));
          expect(responses.map((r) => r.status)).toEqual(Array(25).fill(200));
          const statuses = responses.map((r) => (r.body as { status: string }).status).sort();
          expect(statuses).toEqual(['already_processed', ...Array(23).fill('already_processed'), 'ok'].sort());
          expect(handle).toHaveBeenCalledTimes(1);
          expect(await processed(e.id)).toHaveLength(1);
          expect(await team(user.teamId)).toMatchObject({ plan: 'Team', usage_files_uploaded: '0' });
        } finally {
          handle.mockRestore();
        }
      });
    });

    describe('OpenAPI', () => {
      it('documents the webhook with its payment-signature header, event body and every response, without bearer security', async () => {
        const res = await request(url).get('/docs-json');
        expect(res.status).toBe(200);
        const op = res.body.paths['/api/webhooks/payment'].post;
        expect(op.parameters).toEqual(
          expect.arrayContaining([expect.objectContaining({ name: 'payment-signature', in: 'header', required: true })]),
        );
        expect(op.requestBody.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/PaymentEventBody' });
        expect(Object.keys(op.responses).sort()).toEqual(['200', '400', '500', '503']);
        expect(op.responses['200'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/WebhookAck' });
        expect(JSON.stringify(op.security ?? [])).not.toContain('bearer');
        expect(res.body.components.schemas.PaymentEventBody.required).toEqual(expect.arrayContaining(['id', 'type', 'data']));
        const team = res.body.paths['/api/team'].get;
        expect(team.security).toEqual([{ bearer: [] }]);
      });
    });

    describe('concurrent events about one team', () => {
      it('applies 12 simultaneous subscription updates one after the other: the newest one wins', async () => {
        const { user, sub, cus } = await subscribedTeam();
        const prices = ['price_pro', 'price_team'];
        const events = Array.from({ length: 12 }, (_, i) =>
          subscription('customer.subscription.updated', {
            id: sub,
            customer: cus,
            price: prices[i % 2],
            status: `status_${i}`,
            created: 1764000000 + i,
          }),
        );
        // Newest first, so that most of them arrive after a newer one.
        const responses = await Promise.all([...events].reverse().map((e) => deliver(url, e)));
        expect(responses.map((r) => r.body)).toEqual(Array(12).fill({ status: 'ok' }));
        expect(await team(user.teamId)).toMatchObject({ plan: 'Team', subscription_status: 'status_11' });
        const [{ last }] = (await t.dataSource.query(`SELECT last_subscription_event_created::text AS last FROM teams WHERE id = $1`, [
          user.teamId,
        ])) as {
          last: string;
        }[];
        expect(last).toBe(String(1764000000 + 11));
      });
    });

    // Two instances need a database that two processes can share: PostgreSQL
    // only (the embedded one belongs to a single process). On PGlite the
    // single-instance test above is the whole story, so this block exists only
    // when TEST_DATABASE_URL is set.
    if (process.env.TEST_DATABASE_URL) {
      describe('concurrent deliveries split across two instances on one PostgreSQL', () => {
        let second: NestExpressApplication;
        let secondUrl: string;
        beforeAll(async () => {
          second = await createSecondInstance(t, ENV);
          await second.listen(0, '127.0.0.1');
          secondUrl = await second.getUrl();
        });
        afterAll(() => second.close());

        it('25 simultaneous deliveries, 13 to one instance and 12 to the other: exactly one ok, applied once', async () => {
          const { user, sub, cus } = await subscribedTeam();
          await setUsage(user.teamId, 0, 3, 3);
          const first = jest.spyOn(t.app.get(WebhooksService), 'handle');
          const other = jest.spyOn(second.get(WebhooksService), 'handle');
          try {
            const e = subscription('customer.subscription.updated', { id: sub, customer: cus, price: 'price_pro' });
            const responses = await Promise.all(Array.from({ length: 25 }, (_, i) => deliver(i % 2 === 0 ? url : secondUrl, e)));
            expect(responses.map((r) => r.status)).toEqual(Array(25).fill(200));
            const statuses = responses.map((r) => (r.body as { status: string }).status);
            expect(statuses.filter((s) => s === 'ok')).toHaveLength(1);
            expect(statuses.filter((s) => s === 'already_processed')).toHaveLength(24);
            expect(first.mock.calls.length + other.mock.calls.length).toBe(1);
            expect(await processed(e.id)).toHaveLength(1);
            expect(await team(user.teamId)).toMatchObject({ plan: 'Pro', usage_files_uploaded: '0' });
          } finally {
            first.mockRestore();
            other.mockRestore();
          }
        });
      });
    }
  });

  // Last on purpose: passport keeps one strategy per name for the whole process
  // (the most recently created app's), so once this second app is closed no
  // request of the main app may authenticate any more.
  describe('Payment webhook without PAYMENT_WEBHOOK_SECRET', () => {
    const valid = () => event('checkout.session.completed', { id: 'cs_1', metadata: { team_id: '1' } });
    it('answers 503 "Payment webhooks are not configured" without PAYMENT_WEBHOOK_SECRET, while the rest of the service runs', async () => {
      const bare = await createTestApp({ PAYMENT_PRICE_PLANS: ENV.PAYMENT_PRICE_PLANS });
      try {
        const res = await deliver(bare.http, valid());
        expect(res.status).toBe(503);
        expect(res.body).toEqual({ detail: 'Payment webhooks are not configured' });
        const unsigned = await request(bare.http).post('/api/webhooks/payment').set('Content-Type', 'application/json').send('{}');
        expect(unsigned.status).toBe(503);
        const teamRes = await request(bare.http).get('/api/team').set('Authorization', bare.admin.auth);
        expect(teamRes.status).toBe(200);
      } finally {
        await bare.close();
      }
    });
  });
});
