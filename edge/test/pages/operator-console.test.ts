/**
 * The operator console in real headless Chromium: sign in with the admin token, see the
 * rooms list, open a room, watch the live numbers from the server-sent events, lower the
 * capacity (confirmed in a dialog), see the numbers move and the change in the audit log.
 */
import type { Browser } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { accessibilityIssues } from './accessibility';
import { openPage } from './browser';
import { quickRoom, STACK_ADMIN_TOKEN, useBrowserStack, type BrowserStack } from './browser-stack';

let stack: BrowserStack;
let browser: Browser;

useBrowserStack((b, s) => ((browser = b), (stack = s)));

const VIEWPORTS = [
  { device: 'laptop', viewport: { width: 1100, height: 900 }, suffix: '' },
  { device: 'phone', viewport: { width: 390, height: 844 }, suffix: '-phone' },
] as const;

describe.each(VIEWPORTS)('operator console on a $device', ({ viewport, suffix }) => {
  it('refuses a wrong token, then shows rooms, live numbers, a confirmed capacity change and the audit log', async () => {
    const title = `Console Night ${process.pid}-${Date.now() % 1_000_000}`;
    const showtimeId = await stack.createShowtime({ title });
    await stack.configureRoom(showtimeId, quickRoom(2));
    const buyers = [];
    for (let i = 0; i < 4; i++) buyers.push(await stack.apiBuyer(showtimeId, `console-buyer-${showtimeId}-${i}`));
    // A join answers "waiting" when the core could not record the turn in time (a busy machine):
    // the buyer keeps the slot and the next poll admits. The first two get the room's two turns.
    for (const buyer of buyers.slice(0, 2)) {
      for (let i = 0; i < 20 && buyer.state !== 'admitted'; i++) {
        await new Promise((resolve) => setTimeout(resolve, 250));
        buyer.state = (
          await stack.api('GET', `/api/showtimes/${showtimeId}/queue`, {
            headers: { 'x-queue-token': buyer.queueToken },
          })
        ).json?.state;
      }
    }
    expect(buyers.map((b) => b.state)).toEqual(['admitted', 'admitted', 'waiting', 'waiting']);
    // The two who wait poll as the waiting page does: the line passes over a buyer it has not
    // heard from for a few seconds (gone, most likely), and the numbers below count on them.
    let waiting = true;
    const heartbeats = buyers.slice(2).map(async (buyer) => {
      while (waiting) {
        await stack.api('GET', `/api/showtimes/${showtimeId}/queue`, {
          headers: { 'x-queue-token': buyer.queueToken },
        });
        await new Promise((resolve) => setTimeout(resolve, 1_000));
      }
    });
    try {
      const operator = await openPage(browser, { viewport });
      const { page } = operator;
      await page.goto(`${stack.edgeUrl}/admin`);
      await page.getByLabel('Admin token').fill('not-the-token');
      await page.getByLabel('Your name (for the audit log)').fill('Ada Operator');
      await page.getByRole('button', { name: 'Sign in' }).click();
      expect(await page.getByRole('alert').textContent()).toContain('not right');
      // Only the token is typed again; operator pages carry no buyer footer.
      expect(await page.getByLabel('Your name (for the audit log)').inputValue()).toBe('Ada Operator');
      expect(await page.locator('footer').count()).toBe(0);
      expect(await accessibilityIssues(page)).toEqual([]);
      await operator.shot(`20-console-login-refused${suffix}`);

      await page.getByLabel('Admin token').fill(STACK_ADMIN_TOKEN);
      await page.getByLabel('Your name (for the audit log)').fill('Ada Operator');
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('heading', { name: 'Waiting rooms' }).waitFor();
      const row = page.getByRole('row').filter({ hasText: title });
      expect(await row.textContent()).toContain('2 / 2');
      expect(await accessibilityIssues(page)).toEqual([]);
      await operator.shot(`21-console-rooms${suffix}`);

      await page.getByRole('link', { name: title }).click();
      await expect.poll(() => page.locator('#v-waiting').textContent(), { timeout: 10_000 }).toBe('2');
      expect(await page.locator('#v-active').textContent()).toBe('2');
      await expect.poll(() => page.locator('#v-seatsAvailable').textContent(), { timeout: 10_000 }).toBe('24');
      // The turn length the estimate goes by, and whose: none of this room's turns has ended
      // yet, so the two running ones (at least as long as they have run) or recent sales'.
      expect(await page.locator('#v-turn').textContent()).toMatch(
        /^(not known yet|.+ · (this room's turns|from recent sales, until this room has its own))$/,
      );
      expect(await page.locator('#capacity').inputValue()).toBe('2');
      expect(await accessibilityIssues(page)).toEqual([]);
      await operator.shot(`22-console-room-live${suffix}`);

      // Lower the capacity to 1; the dialog asks first, and "Cancel" changes nothing.
      await page.locator('#capacity').fill('1');
      await page.getByRole('button', { name: 'Apply settings' }).click();
      const dialog = page.getByRole('dialog');
      await dialog.waitFor();
      expect(await dialog.textContent()).toContain('capacity from 2 to 1');
      await operator.shot(`23-console-confirm${suffix}`);
      await page.getByRole('button', { name: 'Cancel' }).click();
      expect(
        (await stack.engine.getSettings(String(showtimeId))).ok &&
          ((await stack.engine.getSettings(String(showtimeId))) as any).settings.capacity,
      ).toBe(2);

      await page.locator('#capacity').fill('1');
      await page.getByRole('button', { name: 'Apply settings' }).click();
      await page.getByRole('button', { name: 'Yes, apply it' }).click();
      await expect
        .poll(() => page.locator('#audit-rows').textContent(), { timeout: 10_000 })
        .toContain('capacity: 2 → 1');
      expect(await page.locator('#audit-rows').textContent()).toContain('Ada Operator');

      // Both admitted buyers finish: with capacity 1 only one of the two waiting is let in.
      for (const buyer of buyers.slice(0, 2))
        await stack.api('DELETE', `/api/showtimes/${showtimeId}/queue`, { token: buyer.token });
      await expect.poll(() => page.locator('#v-waiting').textContent(), { timeout: 15_000 }).toBe('1');
      await expect.poll(() => page.locator('#v-active').textContent(), { timeout: 15_000 }).toMatch(/^[01]$/);
      const points = await page.locator('#chart-waiting polyline').getAttribute('points');
      expect(points?.split(' ').length).toBeGreaterThan(1);
      await operator.shot(`24-console-after-capacity-change${suffix}`);

      // Seats are charted on the hall's fixed scale, with the scale and the span of time charted
      // (first sample → last) said beside the chart.
      expect(await page.locator('#axis-seatsAvailable').textContent()).toMatch(
        /^0 to 24 \(all seats\) · \d{1,2}:\d\d:\d\d(?: [AP]M)? → \d{1,2}:\d\d:\d\d(?: [AP]M)?$/,
      );
      // Out of bounds: said in plain words, nothing sent.
      await page.locator('#capacity').fill('0');
      await page.locator('#settings-form').evaluate((form: HTMLFormElement) => form.requestSubmit());
      await expect
        .poll(() => page.locator('#console-alert').textContent())
        .toBe('Capacity must be a whole number from 1 to 1,000,000.');
      expect(await page.getByRole('dialog').isVisible()).toBe(false);
      // An opening in the past is refused before anything is asked.
      await page.locator('#opensAt').fill('2020-01-01T10:00:00');
      await page.getByRole('button', { name: /Schedule the opening/ }).click();
      await expect.poll(() => page.locator('#console-alert').textContent()).toContain('already passed');
      await page.locator('#capacity').fill('1');

      // The sale's own settings at the core: seats per customer, confirmed, applied and audited.
      expect(await page.getByLabel('Seats per customer').inputValue()).toBe('4');
      await page.getByLabel('Seats per customer').fill('51');
      await page.getByRole('button', { name: 'Apply sale settings' }).click();
      await expect
        .poll(() => page.locator('#console-alert').textContent())
        .toBe('Seats per customer must be a whole number from 1 to 50.');
      await page.getByLabel('Seats per customer').fill('2');
      await page.getByRole('button', { name: 'Apply sale settings' }).click();
      expect(await page.getByRole('dialog').textContent()).toContain('seats per customer from 4 to 2');
      await page.getByRole('button', { name: 'Yes, apply it' }).click();
      await expect
        .poll(
          async () =>
            (await stack.sql`SELECT max_seats_per_customer FROM showtime WHERE id = ${showtimeId}`)[0]!
              .max_seats_per_customer,
        )
        .toBe(2);
      await expect
        .poll(() => page.locator('#audit-rows').textContent(), { timeout: 10_000 })
        .toContain('maxSeatsPerCustomer: 4 → 2');
      expect(await page.getByLabel('Seats per customer').inputValue()).toBe('2');
      // The route refuses clearly and changes nothing: no session, no X-Console header, bad numbers.
      const refusals = await page.evaluate(async (path) => {
        const send = async (headers: Record<string, string>, body: string) =>
          (await fetch(path, { method: 'PATCH', headers: { 'content-type': 'application/json', ...headers }, body }))
            .status;
        return [
          await send({}, '{"maxSeatsPerCustomer":3}'),
          await send({ 'x-console': '1' }, '{"maxSeatsPerCustomer":0}'),
          await send({ 'x-console': '1' }, 'not json'),
          await send({ 'x-console': '1' }, '{"holdTtlMs":5}'),
        ];
      }, `/admin/showtimes/${showtimeId}/sale`);
      expect(refusals).toEqual([403, 422, 422, 422]);
      expect(
        (
          await fetch(`${stack.edgeUrl}/admin/showtimes/${showtimeId}/sale`, {
            method: 'PATCH',
            headers: { 'x-console': '1', 'content-type': 'application/json' },
            body: '{"maxSeatsPerCustomer":3}',
          })
        ).status,
      ).toBe(401);
      expect(
        (await stack.sql`SELECT max_seats_per_customer FROM showtime WHERE id = ${showtimeId}`)[0]!
          .max_seats_per_customer,
      ).toBe(2);

      // The buttons know the state: "Resume (open)" is off while the room is open.
      expect(await page.getByRole('button', { name: 'Resume (open)' }).isDisabled()).toBe(true);
      // Pause, confirmed: the state badge follows.
      await page.getByRole('button', { name: 'Pause admissions' }).click();
      await page.getByRole('button', { name: 'Yes, apply it' }).click();
      await expect.poll(() => page.locator('#room-state').textContent(), { timeout: 10_000 }).toBe('paused');
      await expect.poll(() => page.locator('#audit-rows').textContent()).toContain('state: open → paused');
      expect(await page.getByRole('button', { name: 'Pause admissions' }).isDisabled()).toBe(true);
      expect(await page.getByRole('button', { name: 'Resume (open)' }).isDisabled()).toBe(false);
      expect(await accessibilityIssues(page)).toEqual([]);
      await operator.shot(`25-console-paused${suffix}`);

      // Only the refusals sent on purpose above may show as failed loads.
      expect(operator.errors.filter((e) => !/status of (401|403|422)/.test(e))).toEqual([]);
      expect(operator.external).toEqual([]);
      await operator.context.close();
    } finally {
      waiting = false;
      await Promise.all(heartbeats);
    }
  });
});
