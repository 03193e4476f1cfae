/**
 * The waiting page in real headless Chromium, in a room that asks for proof of work: the
 * join is answered 428 with a challenge, the page solves it in a Web Worker while it shows
 * its progress, sends the join again with the solution and the buyer gets their turn.
 */
import type { Browser } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { openPage, waitForStep } from './browser';
import { quickRoom, useBrowserStack, type BrowserStack } from './browser-stack';

let stack: BrowserStack;
let browser: Browser;

useBrowserStack((b, s) => ((browser = b), (stack = s)));

const DIFFICULTY = 17;

describe('proof of work on the waiting page', () => {
  it('solves the challenge in a Web Worker with progress shown, and joins', async () => {
    const showtimeId = await stack.createShowtime({ title: `Proof ${process.pid}-${Date.now() % 1_000_000}` });
    await stack.configureRoom(showtimeId, { ...quickRoom(5), powDifficulty: DIFFICULTY });
    const buyer = await openPage(browser);
    const { page } = buyer;
    const joins: { status: number; nonce: string | null }[] = [];
    page.on('response', (response) => {
      if (response.request().method() === 'POST' && response.url().endsWith(`/api/showtimes/${showtimeId}/queue`)) {
        joins.push({ status: response.status(), nonce: response.request().headers()['x-pow-nonce'] ?? null });
      }
    });
    const workers: string[] = [];
    page.on('worker', (worker) => workers.push(worker.url()));

    await page.goto(`${stack.edgeUrl}/showtimes/${showtimeId}`);
    // Watch the join button's words from inside the page: the progress may be brief.
    await page.evaluate(() => {
      const seen: string[] = [];
      (window as unknown as { seenLabels: string[] }).seenLabels = seen;
      const button = document.getElementById('join-button')!;
      new MutationObserver(() => seen.push(button.textContent ?? '')).observe(button, {
        childList: true,
        characterData: true,
        subtree: true,
      });
    });
    await page.getByRole('button', { name: 'Join the line' }).click();
    await waitForStep(page, 'step-seats', 60_000);

    expect(joins.map((j) => j.status)).toEqual([428, 200]);
    expect(joins[1]!.nonce).toMatch(/^[a-z0-9]+$/);
    expect(workers.some((url) => url.includes('/assets/pow-worker'))).toBe(true);
    const labels = await page.evaluate(() => (window as unknown as { seenLabels: string[] }).seenLabels);
    expect(
      labels.some((label) => /\d+ %/.test(label)),
      labels.join(' | '),
    ).toBe(true);
    const stats = await stack.engine.stats(String(showtimeId));
    expect(stats.ok && stats.joined).toBe(1);
    // The one 428 is the protocol, not a fault: nothing else may reach the console.
    expect(buyer.errors.filter((e) => !e.includes('428'))).toEqual([]);
    expect(buyer.external).toEqual([]);
    await buyer.context.close();
  });
});
