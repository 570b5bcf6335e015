import * as fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import request from 'supertest';
import { createTestApp, TestApp } from '../setup/test-app';

/**
 * The interactive docs in a real browser (issue 8): Debian's Chromium driven by
 * playwright-core opens /docs, every operation of the interface document is
 * listed, one authorised "Try it out" call answers 200, and a screenshot is
 * kept under test-artifacts/.
 */
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const ARTIFACTS = path.join(__dirname, '..', '..', 'test-artifacts');
const SCREENSHOT = path.join(ARTIFACTS, 'docs-browser.png');
const TRY_IT_OUT_SCREENSHOT = path.join(ARTIFACTS, 'docs-browser-try-it-out.png');

/** The operations of the interface document (seed/interface.md, "Endpoints"). */
const INTERFACE_OPERATIONS: [method: string, path: string][] = [
  ['post', '/api/share/files/upload'],
  ['post', '/api/mcp/test-connection'],
  ['get', '/api/mcp/servers/{server_id}'],
  ['post', '/api/workforces/{workforce_id}/publish'],
  ['get', '/api/workforces/{workforce_id}/canvas'],
  ['get', '/api/mcp/apps'],
  ['get', '/api/files/preview/{file_id}'],
  ['delete', '/api/agents/{agent_id}'],
  ['get', '/api/memory/store-info'],
  ['post', '/api/webhooks/payment'],
];

const opblock = (page: Page, method: string, apiPath: string) =>
  page.locator(`.opblock.opblock-${method}`).filter({ has: page.locator(`.opblock-summary-path[data-path="${apiPath}"]`) });

describe('API docs in headless Chromium', () => {
  let t: TestApp;
  let browser: Browser | undefined;
  let baseUrl: string;

  beforeAll(async () => {
    if (!fs.existsSync(CHROMIUM)) {
      throw new Error(`Chromium not found at ${CHROMIUM}: run scripts/install-chromium.sh (or set CHROMIUM_PATH) to run the browser test`);
    }
    t = await createTestApp();
    await t.app.listen(0, '127.0.0.1');
    baseUrl = `http://127.0.0.1:${(t.http.address() as AddressInfo).port}`;
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('lists every operation of the interface document and runs an authorised "Try it out" call', async () => {
    const page = await browser!.newPage({ viewport: { width: 1280, height: 900 } });
    // Anything the page's Content-Security-Policy blocks shows up as a console error.
    const consoleErrors: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error') consoleErrors.push(message.text());
    });
    page.on('pageerror', (error) => consoleErrors.push(error.message));
    try {
      const response = await page.goto(`${baseUrl}/docs`, { waitUntil: 'load' });
      expect(response?.status()).toBe(200);
      // Served over plain HTTP at a non-loopback address, upgrade-insecure-requests made the browser fetch
      // the UI's scripts over HTTPS and the page stayed blank: the docs go without it (the API keeps it).
      const docsCsp = response!.headers()['content-security-policy'];
      expect(docsCsp).toContain("script-src 'self'");
      expect(docsCsp).not.toContain('upgrade-insecure-requests');
      const apiCsp = (await request(t.http).get('/api/health')).headers['content-security-policy'];
      expect(apiCsp).toContain('upgrade-insecure-requests');
      await page.locator('.swagger-ui .opblock').first().waitFor({ timeout: 20_000 });
      await expect(page.locator('.swagger-ui .info .title').textContent()).resolves.toContain('Agent Platform API');

      for (const [method, apiPath] of INTERFACE_OPERATIONS) {
        await expect(opblock(page, method, apiPath).count()).resolves.toBe(1);
      }

      // Authorize with the admin token.
      await page.locator('.swagger-ui .auth-wrapper button.authorize').click();
      const dialog = page.locator('.swagger-ui .dialog-ux .modal-ux');
      await dialog.locator('input').first().fill(t.admin.token);
      await dialog.locator('button.authorize').click();
      await dialog.locator('button.btn-done, button.close-modal').first().click();

      // GET /api/auth/me → Try it out → Execute → 200 with the admin's identity.
      const me = opblock(page, 'get', '/api/auth/me');
      await me.locator('.opblock-summary').first().click();
      await me.locator('button.try-out__btn').click();
      await me.locator('button.execute').click();
      const status = me.locator('.live-responses-table .response .response-col_status').first();
      await status.waitFor({ timeout: 20_000 });
      expect((await status.textContent())?.trim()).toMatch(/^200/);
      await expect(me.locator('.live-responses-table').first().textContent()).resolves.toContain('"email": "admin@localhost"');
      // The call carried the token the UI was given.
      await expect(me.locator('.curl-command').first().textContent()).resolves.toContain(`Authorization: Bearer ${t.admin.token}`);
      fs.mkdirSync(ARTIFACTS, { recursive: true });
      await me.screenshot({ path: TRY_IT_OUT_SCREENSHOT });

      expect(consoleErrors.filter((e) => /Content[- ]Security[- ]Policy|Refused to/i.test(e))).toEqual([]);
    } finally {
      fs.mkdirSync(ARTIFACTS, { recursive: true });
      await page.screenshot({ path: SCREENSHOT, fullPage: true });
      await page.close();
    }
    expect(fs.statSync(SCREENSHOT).size).toBeGreaterThan(10_000);
  }, 90_000);
});
