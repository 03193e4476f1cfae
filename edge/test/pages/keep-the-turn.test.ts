/**
 * A cancelled or lapsed hold frees its seats, not the turn, in real headless Chromium with
 * the core's events delivered to the edge as in production: the buyer cancels (or lets the
 * hold lapse), is back on the map, and the next "Hold these seats" succeeds within the same
 * turn while the next buyer in line keeps waiting. On a phone, a seat taken by someone else
 * is explained next to the map, in view, with the focus on the message.
 */
import type { Browser, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { accessibilityIssues } from './accessibility';
import { openPage, waitForStep, type WatchedPage } from './browser';
import { quickRoom, useBrowserStack, type BrowserStack } from './browser-stack';

let stack: BrowserStack;
let browser: Browser;

useBrowserStack((b, s) => ((browser = b), (stack = s)));

const PHONE = { width: 390, height: 844 };
const LAPTOP = { width: 1366, height: 800 };
const BOTH = [
  ['a laptop', LAPTOP, ''],
  ['a 390 px phone', PHONE, 'phone-'],
] as const;

async function admittedBuyer(showtimeId: number, viewport?: { width: number; height: number }): Promise<WatchedPage> {
  const buyer = await openPage(browser, viewport ? { viewport } : {});
  await buyer.page.goto(`${stack.edgeUrl}/showtimes/${showtimeId}`);
  await buyer.page.getByRole('button', { name: 'Join the line' }).click();
  await waitForStep(buyer.page, 'step-seats');
  await buyer.page.locator('#seat-grid button[data-code="A1"]').waitFor();
  return buyer;
}

async function holdSeats(page: Page, codes: string[]) {
  for (const code of codes) await page.locator(`#seat-grid button[data-code="${code}"]`).click();
  await page.getByRole('button', { name: 'Hold these seats' }).click();
  await waitForStep(page, 'step-hold');
  return (await page.locator('#held-seats').textContent())?.split(', ') ?? [];
}

/** A JSON client admitted to the room (joins again, which claims an offer, until it has its token). */
async function admittedApiBuyer(showtimeId: number) {
  const buyer = await stack.apiBuyer(showtimeId, `api-${showtimeId}`);
  for (let i = 0; i < 50 && !buyer.accessToken; i++) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    Object.assign(buyer, (await stack.api('POST', `/api/showtimes/${showtimeId}/queue`, { token: buyer.token })).json);
  }
  expect(buyer.accessToken).toBeTruthy();
  return buyer;
}

const customerOfHold = async (showtimeId: number) =>
  (
    await stack.sql<
      { customer_id: string; id: string }[]
    >`SELECT customer_id, id FROM seat_hold WHERE showtime_id = ${showtimeId} ORDER BY created_at DESC LIMIT 1`
  )[0]!;

describe('keeping the turn', () => {
  it.each(BOTH)(
    'cancel, then hold again in the same turn; the slot is not given away (%s)',
    async (_name, viewport, shotPrefix) => {
      const showtimeId = await stack.createShowtime({ title: 'Second Thoughts' });
      await stack.configureRoom(showtimeId, quickRoom(1));
      const buyer = await admittedBuyer(showtimeId, viewport);
      const { page } = buyer;

      expect(await holdSeats(page, ['B3', 'B4'])).toEqual(['B3', 'B4']);
      expect(await page.locator('#hold-total').textContent()).toMatch(/25[.,]00/);
      await page.getByRole('button', { name: 'Cancel and release the seats' }).click();
      await waitForStep(page, 'step-seats');
      // The core's HoldReleased (cancelled) reaches the edge, as the relay and consumer deliver it.
      const delivered = await stack.deliverBookingEvents(showtimeId);
      expect(delivered.map((e) => [e.type, e.payload.reason ?? null])).toContainEqual(['HoldReleased', 'cancelled']);
      await expect.poll(() => page.locator('#status').textContent()).toContain('Your turn goes on');

      await page.locator('#seat-grid button[data-code="B4"]').waitFor();
      expect(await holdSeats(page, ['C1'])).toEqual(['C1']);
      // The turn was never given back: nothing released, the buyer still holds the admission.
      const stats = await stack.engine.stats(String(showtimeId));
      expect(stats.ok && [stats.released, stats.active]).toEqual([0, 1]);
      expect(await accessibilityIssues(page)).toEqual([]);
      await buyer.shot(`${shotPrefix}70-rehold-after-cancel`);
      expect(buyer.errors).toEqual([]);
      await buyer.context.close();
    },
  );

  it.each(BOTH)(
    'a hold that lapses: back on the map with the reason, and the next hold succeeds (%s)',
    async (_name, viewport, shotPrefix) => {
      const showtimeId = await stack.createShowtime({ title: 'Slow Payer', holdTtlMs: 5_000 });
      await stack.configureRoom(showtimeId, quickRoom(1));
      const buyer = await admittedBuyer(showtimeId, viewport);
      const { page } = buyer;
      await holdSeats(page, ['A3']);
      const hold = await customerOfHold(showtimeId);
      await waitForStep(page, 'step-seats', 15_000).catch(() => {});
      await expect
        .poll(() => page.locator('#alert').textContent(), { timeout: 15_000 })
        .toContain('Your turn goes on: please choose your seats again.');
      // What the sweeper publishes for a lapsed hold.
      await stack.deliverBookingEvents(showtimeId, [
        {
          type: 'HoldReleased',
          showtimeId,
          payload: { holdId: hold.id, customerId: hold.customer_id, reason: 'expired', seats: ['A3'] },
        },
      ]);
      expect(await holdSeats(page, ['A4'])).toEqual(['A4']);
      await buyer.shot(`${shotPrefix}71-rehold-after-lapse`);
      expect(buyer.errors).toEqual([]);
      await buyer.context.close();
    },
  );

  it('on a phone, the conflict message sits next to the map, in view, with the focus on it', async () => {
    const showtimeId = await stack.createShowtime({
      title: 'Phone Conflict',
      layout: {
        rows: 8,
        columns: 15,
        coupleRows: [8],
        accessible: [
          [1, 14],
          [1, 15],
        ],
      },
    });
    await stack.configureRoom(showtimeId, quickRoom(5));
    const buyer = await admittedBuyer(showtimeId, PHONE);
    const { page } = buyer;
    const rival = await admittedApiBuyer(showtimeId);
    expect(
      (
        await stack.api('POST', `/api/showtimes/${showtimeId}/holds`, {
          token: rival.accessToken,
          body: { seats: ['F5'] },
        })
      ).status,
    ).toBe(201);
    await page.locator('#seat-grid button[data-code="F5"]').click();
    await page.getByRole('button', { name: 'Hold these seats' }).click();
    const alert = page.locator('#alert');
    await alert.waitFor({ state: 'visible' });
    expect(await alert.textContent()).toBe(
      'Sorry, someone else just took seat F5. The seat map has been refreshed: please pick again.',
    );
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('alert');
    const box = (await alert.boundingBox())!;
    expect(box.y).toBeGreaterThanOrEqual(0);
    expect(box.y + box.height).toBeLessThanOrEqual(PHONE.height);
    // The message is inside the seat step, next to the map, not at the top of the page.
    expect(await page.locator('#step-seats #alert').count()).toBe(1);
    // The wheelchair spaces at the far end are in view with the row labels: a row of 15 fits
    // the phone, so there is nothing to scroll and no hint to scroll.
    await page.locator('#seat-grid button[data-code="A15"]').scrollIntoViewIfNeeded();
    const label = (await page.locator('.row-label').first().boundingBox())!;
    expect(label.x).toBeGreaterThanOrEqual(0);
    const far = (await page.locator('#seat-grid button[data-code="A15"]').boundingBox())!;
    expect(far.x + far.width).toBeLessThanOrEqual(PHONE.width);
    expect(await page.locator('.scroll-hint').isVisible()).toBe(false);
    // Couple seats go in pairs: choosing H1 chooses H2 too.
    await page.locator('#seat-grid button[data-code="H1"]').click();
    expect(await page.locator('#seat-grid button[data-code="H2"]').getAttribute('aria-pressed')).toBe('true');
    await buyer.shot('72-phone-conflict');
    expect(buyer.errors.filter((e) => !e.includes('status of 409'))).toEqual([]);
    await buyer.context.close();
  });

  it.each(BOTH)(
    'a second tab of the same buyer shows their hold, and the turn warns 2 minutes before it ends (%s)',
    async (_name, viewport, shotPrefix) => {
      const showtimeId = await stack.createShowtime({ title: 'Two Tabs' });
      await stack.configureRoom(showtimeId, { ...quickRoom(2), sessionTtlMs: 121_000 });
      const buyer = await admittedBuyer(showtimeId, viewport);
      expect(await buyer.page.title()).toBe("It's your turn · Two Tabs · Premiere Tickets");
      await expect
        .poll(() => buyer.page.locator('#status').textContent(), { timeout: 10_000 })
        .toBe('2 minutes left in your turn to choose seats.');
      expect(await holdSeats(buyer.page, ['B3'])).toEqual(['B3']);

      const second = await buyer.context.newPage();
      await second.goto(`${stack.edgeUrl}/showtimes/${showtimeId}`);
      await waitForStep(second, 'step-hold');
      expect(await second.locator('#held-seats').textContent()).toBe('B3');
      expect(await accessibilityIssues(second)).toEqual([]);
      await second.screenshot({ path: `test-artifacts/pages/${shotPrefix}73-second-tab-hold.png`, fullPage: true });
      // Cancelled in the second tab: the first follows back to the map, and its own seat is free again.
      await second.getByRole('button', { name: 'Cancel and release the seats' }).click();
      await waitForStep(second, 'step-seats');
      await waitForStep(buyer.page, 'step-seats');
      await expect
        .poll(() => buyer.page.locator('#seat-grid button[data-code="B3"]').getAttribute('aria-disabled'))
        .toBeNull();
      expect(buyer.errors).toEqual([]);
      await buyer.context.close();
    },
  );
});
