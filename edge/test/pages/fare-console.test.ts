/**
 * The console's "Fares and refunds" page in real headless Chromium, on the whole stack: classes
 * with live counts, a standing area added with overbooking, bounds said in plain words before
 * anything is sent, seats moved to a new class, the refund policy changed; every change
 * confirmed in a dialog, saved at the core and audited; axe-core clean on desktop and at 390 px.
 */
import type { Browser, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { accessibilityIssues } from './accessibility';
import { openPage } from './browser';
import { quickRoom, STACK_ADMIN_TOKEN, useBrowserStack, type BrowserStack } from './browser-stack';

let stack: BrowserStack;
let browser: Browser;

useBrowserStack((b, s) => ((browser = b), (stack = s)));

async function signIn(page: Page, name: string) {
  await page.goto(`${stack.edgeUrl}/admin`);
  await page.getByLabel('Admin token').fill(STACK_ADMIN_TOKEN);
  await page.getByLabel('Your name (for the audit log)').fill(name);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Waiting rooms' }).waitFor();
}

const cell = (page: Page, fareClass: string, count: string) =>
  page.locator(`#fare-rows tr[data-fare-class="${fareClass}"] td[data-count="${count}"]`);

describe('operator console: fares and refunds', () => {
  it('shows classes with live counts, adds a standing area with overbooking, moves seats, changes the refund policy; each confirmed, saved and audited', async () => {
    const title = `Fares Night ${process.pid}-${Date.now() % 1_000_000}`;
    const showtimeId = await stack.createShowtime({ title });
    await stack.configureRoom(showtimeId, quickRoom(5));

    const operator = await openPage(browser);
    const { page } = operator;
    await signIn(page, 'Fiona Fares');
    await page.goto(`${stack.edgeUrl}/admin/showtimes/${showtimeId}`);
    await page.getByRole('link', { name: 'Fares and refunds' }).click();
    await page.getByRole('heading', { name: `Fares and refunds: ${title}` }).waitFor();
    const standard = page.locator('#fare-rows tr[data-fare-class="STANDARD"]');
    expect(await standard.textContent()).toContain('seats');
    expect(await page.getByRole('link', { name: 'Room and sale' }).getAttribute('href')).toBe(
      `/admin/showtimes/${showtimeId}`,
    );
    expect(await cell(page, 'STANDARD', 'available').textContent()).toBe('24');
    expect(await page.locator('#policy-summary').textContent()).toBe(
      'Full refund until 24 hours before the start; 50 % back until 2 hours before the start; nothing after. No cancellation once the showing has started.',
    );
    expect(await accessibilityIssues(page)).toEqual([]);
    await operator.shot('60-fares-console');

    // A buyer holds two seats: the counts follow without a reload.
    const buyer = await stack.apiBuyer(showtimeId, 'fares-buyer');
    expect(
      (
        await stack.api('POST', `/api/showtimes/${showtimeId}/holds`, {
          token: buyer.accessToken,
          body: { seats: ['B1', 'B2'] },
        })
      ).status,
    ).toBe(201);
    await expect.poll(() => cell(page, 'STANDARD', 'held').textContent(), { timeout: 10_000 }).toBe('2');
    expect(await cell(page, 'STANDARD', 'available').textContent()).toBe('22');
    await expect.poll(() => page.locator('#fares-live').textContent()).toMatch(/^Counts updated /);

    // A seated class has no places or overbooking to set.
    expect(await page.getByLabel('Places', { exact: true }).isVisible()).toBe(false);
    expect(await page.locator('#seated-hint').isVisible()).toBe(true);

    // A new standing area: out of bounds first (said in words, nothing asked), then saved.
    await page.getByLabel('Class', { exact: true }).selectOption({ label: 'A new standing area…' });
    await page.getByLabel(/Code of the new area/).fill('GA_FLOOR');
    await page.getByLabel('Name buyers see').fill('Standing floor');
    await page.getByLabel(/^Price in EUR/).fill('30');
    await page.getByLabel('Places', { exact: true }).fill('50');
    await page.getByLabel(/Overbooking limit/).fill('-1');
    await page.getByRole('button', { name: 'Save the class' }).click();
    await expect
      .poll(() => page.locator('#fares-alert').textContent())
      .toBe('Overbooking limit must be a whole number from 0 to 1,000,000.');
    expect(await page.getByRole('dialog').isVisible()).toBe(false);
    await page.getByLabel(/Overbooking limit/).fill('3');
    await page.getByRole('button', { name: 'Save the class' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.waitFor();
    expect(await dialog.textContent()).toContain(
      'Add the standing area GA_FLOOR: name "Standing floor", price €30.00, places 50, overbooking 3',
    );
    await operator.shot('61-fares-confirm');
    await page.getByRole('button', { name: 'Yes, apply it' }).click();
    await expect.poll(() => cell(page, 'GA_FLOOR', 'available').textContent(), { timeout: 10_000 }).toBe('53');
    expect(await page.locator('#fare-rows tr[data-fare-class="GA_FLOOR"]').textContent()).toContain('standing places');
    const [totals] =
      await stack.sql`SELECT sum(capacity)::int AS capacity, sum(overbook_limit)::int AS overbook FROM fare_inventory WHERE showtime_id = ${showtimeId} AND fare_class = 'GA_FLOOR'`;
    expect(totals).toEqual({ capacity: 50, overbook: 3 });

    // Below what is sold and held: refused in words before anything is sent.
    await page.locator('#fare-rows button[data-edit="GA_FLOOR"]').click();
    expect(await page.getByLabel('Places', { exact: true }).inputValue()).toBe('50');
    await page.getByLabel('Places', { exact: true }).fill('40');
    await page.getByRole('button', { name: 'Save the class' }).click();
    expect(await dialog.textContent()).toContain('Change Standing floor: places 50 → 40?');
    await page.getByRole('button', { name: 'Yes, apply it' }).click();
    await expect
      .poll(() => page.locator('#fare-rows tr[data-fare-class="GA_FLOOR"] td').nth(2).textContent(), {
        timeout: 10_000,
      })
      .toBe('40');

    // Seats to a new class; a held seat is refused with the core's words.
    await page.getByLabel(/^Seats \(such as/).fill('a5, A6');
    await page.getByLabel(/^To the seated class/).fill('premium');
    await page.getByRole('button', { name: 'Move the seats' }).click();
    expect(await dialog.textContent()).toContain('Move A5, A6 to a new seated class PREMIUM?');
    await page.getByRole('button', { name: 'Yes, apply it' }).click();
    await expect.poll(() => cell(page, 'PREMIUM', 'available').textContent(), { timeout: 10_000 }).toBe('2');
    expect(await cell(page, 'STANDARD', 'available').textContent()).toBe('20');
    await page.getByLabel(/^Seats \(such as/).fill('B1');
    await page.getByLabel(/^To the seated class/).fill('PREMIUM');
    await page.getByRole('button', { name: 'Move the seats' }).click();
    await page.getByRole('button', { name: 'Yes, apply it' }).click();
    await expect
      .poll(() => page.locator('#fares-alert').textContent())
      .toBe('Not moved: B1 is held or sold right now; only free seats change class. Nothing was moved.');

    // The refund policy: a later step giving back more is refused in words; then saved.
    await page.getByLabel('Step 2: percent back').fill('120');
    await page.getByRole('button', { name: 'Save the policy' }).click();
    await expect
      .poll(() => page.locator('#fares-alert').textContent())
      .toContain('Step 2: the refund must be a whole percent from 0 to 100.');
    await page.getByLabel('Step 1: hours before the start').fill('48');
    await page.getByLabel('Step 2: hours before the start').fill('6');
    await page.getByLabel('Step 2: percent back').fill('25');
    await page.getByRole('button', { name: 'Add a step' }).click();
    await page.getByLabel('Step 4: hours before the start').fill('1');
    await page.getByLabel('Step 4: percent back').fill('10');
    expect(await page.locator('#policy-summary').textContent()).toBe(
      'Full refund until 48 hours before the start; 25 % back until 6 hours before the start; 10 % back until 1 hour before the start; nothing after. No cancellation once the showing has started.',
    );
    await page.getByRole('button', { name: 'Save the policy' }).click();
    expect(await dialog.textContent()).toContain('Set the refund policy to: Full refund until 48 hours');
    await page.getByRole('button', { name: 'Yes, apply it' }).click();
    await expect
      .poll(
        async () => (await stack.sql`SELECT refund_policy FROM showtime WHERE id = ${showtimeId}`)[0]!.refund_policy,
      )
      .toEqual([
        { beforeStartMinutes: 2880, percent: 100 },
        { beforeStartMinutes: 360, percent: 25 },
        { beforeStartMinutes: 60, percent: 10 },
      ]);
    expect(await accessibilityIssues(page)).toEqual([]);
    await operator.shot('62-fares-saved');

    // Every change is in the audit log under the signed-in operator.
    const audit = await stack.sql<
      { action: string; actor: string }[]
    >`SELECT action, actor FROM operator_audit WHERE showtime_id = ${showtimeId} ORDER BY id`;
    expect(audit.map((a) => a.action)).toEqual(
      expect.arrayContaining(['fare.create', 'fare.update', 'fare.seats', 'refund-policy.update']),
    );
    expect(
      audit
        .filter((a) => a.action.startsWith('fare') || a.action.startsWith('refund'))
        .every((a) => a.actor === 'Fiona Fares'),
    ).toBe(true);

    // The operator API refuses a console write without X-Console, and anyone without a session.
    const refused = await page.evaluate(
      async (path) =>
        (await fetch(path, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: '{"tiers":[]}' }))
          .status,
      `/api/admin/showtimes/${showtimeId}/refund-policy`,
    );
    expect(refused).toBe(403);
    expect((await fetch(`${stack.edgeUrl}/api/admin/showtimes/${showtimeId}/fares`)).status).toBe(401);
    expect((await fetch(`${stack.edgeUrl}/admin/showtimes/${showtimeId}/fares`, { redirect: 'manual' })).status).toBe(
      303,
    );
    expect(operator.errors.filter((e) => !/status of (403|409)/.test(e))).toEqual([]);
    expect(operator.external).toEqual([]);

    // A phone: the same page at 390 px, nothing wider than the screen but the tables' own scroll.
    const phone = await openPage(browser, { viewport: { width: 390, height: 844 } });
    await phone.context.addCookies(await operator.context.cookies());
    await phone.page.goto(`${stack.edgeUrl}/admin/showtimes/${showtimeId}/fares`);
    await phone.page.getByRole('heading', { name: `Fares and refunds: ${title}` }).waitFor();
    expect(await phone.page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    expect(await accessibilityIssues(phone.page)).toEqual([]);
    await phone.shot('63-fares-console-390');
    expect(phone.errors).toEqual([]);
    await phone.context.close();
    await operator.context.close();
  });
});
