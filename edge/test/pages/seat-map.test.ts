/**
 * The seat map in real headless Chromium: a second buyer who picks a seat someone else has
 * just taken is told so in words and sees a refreshed map; the whole map works from the
 * keyboard alone; the page fits a phone screen.
 */
import type { Browser } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { accessibilityIssues } from './accessibility';
import { openPage, waitForStep, type WatchedPage } from './browser';
import { quickRoom, useBrowserStack, type BrowserStack } from './browser-stack';

let stack: BrowserStack;
let browser: Browser;

useBrowserStack((b, s) => ((browser = b), (stack = s)));

/** A buyer in the browser, joined and admitted (the room has room for everyone). */
async function admittedBuyer(showtimeId: number, viewport?: { width: number; height: number }): Promise<WatchedPage> {
  const buyer = await openPage(browser, viewport ? { viewport } : {});
  await buyer.page.goto(`${stack.edgeUrl}/showtimes/${showtimeId}`);
  await buyer.page.getByRole('button', { name: 'Join the line' }).click();
  await waitForStep(buyer.page, 'step-seats');
  await buyer.page.locator('#seat-grid button[data-code="A1"]').waitFor();
  return buyer;
}

describe('seat map', () => {
  it('a seat taken a moment ago: the second buyer is told in words and sees the refreshed map', async () => {
    const showtimeId = await stack.createShowtime({ title: 'Conflict Matinee' });
    await stack.configureRoom(showtimeId, quickRoom(5));
    const second = await admittedBuyer(showtimeId);
    const { page } = second;
    const seat = page.locator('#seat-grid button[data-code="C3"]');
    expect(await seat.getAttribute('aria-disabled')).toBeNull();

    // Another buyer (a JSON client) takes C3 while this page still shows it free.
    const rival = await stack.apiBuyer(showtimeId, `rival-${showtimeId}`);
    const taken = await stack.api('POST', `/api/showtimes/${showtimeId}/holds`, {
      token: rival.accessToken,
      body: { seats: ['C3'] },
    });
    expect(taken.status).toBe(201);

    await seat.click();
    await page.locator('#seat-grid button[data-code="C4"]').click();
    await page.getByRole('button', { name: 'Hold these seats' }).click();
    await page.locator('#alert').waitFor({ state: 'visible' });
    expect(await page.locator('#alert').textContent()).toBe(
      'Sorry, someone else just took seat C3. The seat map has been refreshed: please pick again.',
    );
    await expect
      .poll(() => page.locator('#seat-grid button[data-code="C3"]').getAttribute('aria-disabled'))
      .toBe('true');
    expect(await page.locator('#seat-grid button[data-code="C3"]').getAttribute('aria-label')).toContain(
      'held by another buyer',
    );
    // The seat that was still free stays chosen; the buyer only has to replace the lost one.
    expect(await page.locator('#seat-grid button[data-code="C4"]').getAttribute('aria-pressed')).toBe('true');
    await second.shot('10-seat-conflict');

    // A 409 is an answer the page handles; Chromium still logs the response status.
    expect(second.errors.filter((e) => !e.includes('status of 409'))).toEqual([]);
    expect(second.external).toEqual([]);
    await second.context.close();
  });

  it("two seated classes: the map says each class's price, each seat names its class, and the total adds the seats' own prices", async () => {
    const showtimeId = await stack.createShowtime({ title: 'Two Prices Night' });
    // Row B becomes a dearer class, as a hall created with fareClass per seat would have it.
    await stack.sql`INSERT INTO fare_class (showtime_id, fare_class, label, price_cents, seated) VALUES (${showtimeId}, 'PREMIUM', 'Premium', 2000, true)`;
    await stack.sql`UPDATE show_seat SET fare_class = 'PREMIUM' WHERE showtime_id = ${showtimeId} AND seat_code LIKE 'B%'`;
    await stack.sql`SELECT fare_recount_seated(${showtimeId}, 'PREMIUM'), fare_recount_seated(${showtimeId}, 'STANDARD')`;
    await stack.configureRoom(showtimeId, quickRoom(5));
    const buyer = await admittedBuyer(showtimeId);
    const { page } = buyer;
    const euros = (cents: number) =>
      page.evaluate(
        (c) => new Intl.NumberFormat(undefined, { style: 'currency', currency: 'EUR' }).format(c / 100),
        cents,
      );
    expect(await page.locator('#seats-left').textContent()).toContain(
      `Premium ${await euros(2000)} · Standard ${await euros(1250)}`,
    );
    expect(await page.locator('#seat-grid button[data-code="B3"]').getAttribute('aria-label')).toContain(
      `Premium ${await euros(2000)}`,
    );
    await page.locator('#seat-grid button[data-code="B3"]').click();
    await page.locator('#seat-grid button[data-code="C3"]').click();
    expect(await page.locator('#selection').textContent()).toBe(`Chosen: B3, C3 · ${await euros(3250)}`);
    expect(buyer.errors).toEqual([]);
    await buyer.context.close();
  });

  it('general admission: the buyer picks an area and a quantity, holds the places and sees the total; too many is told in words', async () => {
    const showtimeId = await stack.createShowtime({ title: 'Standing Room Night' });
    await stack.sql`INSERT INTO fare_class (showtime_id, fare_class, label, price_cents, seated) VALUES (${showtimeId}, 'GA_FLOOR', 'Standing floor', 3000, false)`;
    await stack.sql`SELECT fare_configure_places(${showtimeId}, 'GA_FLOOR', 3, 0, 2::smallint)`;
    await stack.configureRoom(showtimeId, quickRoom(5));
    const buyer = await admittedBuyer(showtimeId);
    const { page } = buyer;
    const euros = (cents: number) =>
      page.evaluate(
        (c) => new Intl.NumberFormat(undefined, { style: 'currency', currency: 'EUR' }).format(c / 100),
        cents,
      );
    await page.getByRole('heading', { name: 'Places without seat numbers' }).waitFor();
    expect(await page.getByLabel('Area').locator('option').first().textContent()).toBe(
      `Standing floor, ${await euros(3000)} each (3 places left)`,
    );

    await page.getByLabel('How many places').fill('4');
    await page.getByRole('button', { name: 'Hold these places' }).click();
    await page.locator('#alert').waitFor({ state: 'visible' });
    expect(await page.locator('#alert').textContent()).toBe(
      'Sorry, only 3 places are left in that area. Please choose fewer.',
    );

    await page.getByLabel('How many places').fill('2');
    await page.getByRole('button', { name: 'Hold these places' }).click();
    await waitForStep(page, 'step-hold');
    expect(await page.locator('#held-seats').textContent()).toBe('2 × Standing floor');
    expect(await page.locator('#hold-total').textContent()).toBe(await euros(6000));
    const [held] = await stack.sql<
      { quantity: number }[]
    >`SELECT quantity FROM seat_hold WHERE showtime_id = ${showtimeId} AND status = 'ACTIVE'`;
    expect(held!.quantity).toBe(2);
    expect(buyer.errors.filter((e) => !e.includes('status of 409'))).toEqual([]);
    await buyer.context.close();
  });

  it('works from the keyboard alone: Tab into the map, arrows to move, Space to choose, Enter to hold', async () => {
    const showtimeId = await stack.createShowtime({ title: 'Keyboard Gala' });
    await stack.configureRoom(showtimeId, quickRoom(5));
    const buyer = await openPage(browser);
    const { page } = buyer;
    await page.goto(`${stack.edgeUrl}/showtimes/${showtimeId}`);
    // Tab to the join button (skip link, brand link, then the button) and press Enter.
    for (let i = 0; i < 10; i++) {
      await page.keyboard.press('Tab');
      if ((await page.evaluate(() => document.activeElement?.id)) === 'join-button') break;
    }
    await page.keyboard.press('Enter');
    await waitForStep(page, 'step-seats');
    await page.locator('#seat-grid button[data-code="A1"]').waitFor();

    // The admission session is counted down next to the map.
    expect(await page.locator('#turn-countdown').textContent()).toMatch(/^[45]:\d\d$/);
    const focused = () =>
      page.evaluate(
        () => (document.activeElement as HTMLElement | null)?.dataset?.code ?? document.activeElement?.id ?? null,
      );
    // Only one seat is in the tab order (roving tabindex): one Tab from the heading reaches it.
    expect(await page.locator('#seat-grid button[tabindex="0"]').count()).toBe(1);
    await page.keyboard.press('Tab');
    expect(await focused()).toBe('A1');
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowDown');
    expect(await focused()).toBe('B3');
    await page.keyboard.press('Space');
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('Enter');
    await page.keyboard.press('End');
    expect(await focused()).toBe('B6');
    await page.keyboard.press('PageDown');
    expect(await focused()).toBe('D6');
    await page.keyboard.press('Home');
    expect(await focused()).toBe('D1');
    expect(await page.locator('#selection').textContent()).toContain('B3, B4');
    expect(await page.locator('#seat-grid button[data-code="B3"]').getAttribute('aria-label')).toBe(
      'Row B, seat 3, standard seat, selected',
    );
    await buyer.shot('11-keyboard-selection');

    // Tab leaves the grid for the hold button; Enter holds.
    await page.keyboard.press('Tab');
    expect(await focused()).toBe('hold-button');
    await page.keyboard.press('Enter');
    await waitForStep(page, 'step-hold');
    expect(await page.locator('#held-seats').textContent()).toBe('B3, B4');
    // Cancel from the keyboard too: the seats come back.
    for (let i = 0; i < 6 && (await focused()) !== 'cancel-button'; i++) await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    await waitForStep(page, 'step-seats');
    await expect.poll(() => page.locator('#seat-grid button[data-code="B3"]').getAttribute('aria-disabled')).toBeNull();

    expect(buyer.errors).toEqual([]);
    await buyer.context.close();
  });

  it('fits a phone screen: the map scrolls inside its box, the page does not scroll sideways', async () => {
    const showtimeId = await stack.createShowtime({
      title: 'Phone Preview',
      layout: { rows: 8, columns: 14, coupleRows: [8], accessible: [[1, 1]] },
    });
    await stack.configureRoom(showtimeId, quickRoom(5));
    const buyer = await admittedBuyer(showtimeId, { width: 360, height: 740 });
    const overflow = await buyer.page.evaluate(
      () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
    );
    expect(overflow).toBeLessThanOrEqual(0);
    await buyer.shot('12-phone-seat-map');
    await buyer.page.goto(`${stack.edgeUrl}/`);
    await buyer.shot('13-phone-showtime-list');
    expect(buyer.errors).toEqual([]);
    await buyer.context.close();
  });
});

describe('the seat map on a 390 px phone', () => {
  it('shows a whole row of 15 seats without scrolling, and nothing shows through the row labels', async () => {
    const showtimeId = await stack.createShowtime({
      title: 'Fifteen Across',
      layout: {
        rows: 6,
        columns: 15,
        coupleRows: [6],
        accessible: [
          [1, 1],
          [1, 2],
        ],
      },
    });
    await stack.configureRoom(showtimeId, quickRoom(5));
    const buyer = await admittedBuyer(showtimeId, { width: 390, height: 844 });
    const { page } = buyer;
    const row = await page.evaluate(() => {
      const seats = Array.from(document.querySelectorAll<HTMLElement>('#seat-grid button[data-row="1"]'), (b) =>
        b.getBoundingClientRect(),
      );
      const label = document.querySelector('#seat-grid .row-label')!.getBoundingClientRect();
      return {
        count: seats.length,
        right: Math.max(...seats.map((r) => r.right)),
        left: Math.min(...seats.map((r) => r.left)),
        labelRight: label.right,
        width: Math.min(...seats.map((r) => r.width)),
        viewport: document.documentElement.clientWidth,
      };
    });
    expect(row.count).toBe(15);
    expect(row.right).toBeLessThanOrEqual(row.viewport);
    expect(row.left).toBeGreaterThanOrEqual(row.labelRight);
    // Every seat stays a comfortable target (axe's target-size rule checks it too).
    expect(row.width).toBeGreaterThanOrEqual(24);
    const overflow = await page.evaluate(
      () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
    );
    expect(overflow).toBeLessThanOrEqual(0);
    expect(await page.locator('#scroll-hint').isVisible()).toBe(false);
    expect(await accessibilityIssues(page)).toEqual([]);
    await buyer.shot('phone-14-fifteen-across');
    expect(buyer.errors).toEqual([]);
    await buyer.context.close();
  });
});
