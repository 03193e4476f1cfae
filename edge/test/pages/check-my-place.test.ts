/**
 * "Check my place" (/fairness) in real headless Chromium: the sale page keeps the join's
 * receipt and offers it as a download; after the sale ends, a buyer pastes a receipt and reads,
 * in words, that the sale verified and where they stood; a tampered receipt reads as not verified (the broken variant); a sale not over yet is
 * said so. The page works before any script runs (a plain form) and is axe clean.
 */
import { Redis } from 'ioredis';
import type { Browser } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';
import { translate } from '../../../lib/i18n/translate';
import { copyJournal } from '../../../core/src/fairness/fairness-copier';
import { createFairnessJournal, createIoredisStore } from '../../../queue/src/index';
import { testRedisUrl } from '../../../test/support/env';
import { accessibilityIssues } from './accessibility';
import { openPage } from './browser';
import { quickRoom, useBrowserStack, type BrowserStack } from './browser-stack';

let stack: BrowserStack;
let browser: Browser;
const redis = new Redis(testRedisUrl());

useBrowserStack((b, s) => ((browser = b), (stack = s)));
afterAll(() => redis.disconnect());

describe('check my place', () => {
  it('a buyer checks their receipt after the sale: verified, in words; a tampered receipt is not', async () => {
    const showtimeId = await stack.createShowtime({ title: 'Fair Night' });
    await stack.configureRoom(showtimeId, quickRoom(5));
    const buyers = [];
    for (let i = 0; i < 3; i++) buyers.push(await stack.apiBuyer(showtimeId, `fair-${showtimeId}-${i}`));
    expect(buyers.map((b) => typeof b.receipt)).toEqual(['string', 'string', 'string']);

    const buyer = await openPage(browser, { viewport: { width: 390, height: 844 } });
    const { page } = buyer;
    // The sale page keeps the receipt of the join and offers it, with the way to check it later.
    await page.goto(`${stack.edgeUrl}/showtimes/${showtimeId}`);
    await page.locator('#join-button').click();
    await page.locator('#receipt-note').waitFor({ state: 'visible' });
    const download = await page.locator('#receipt-download').getAttribute('href');
    const kept = decodeURIComponent(download!.replace(/^data:text\/plain;charset=utf-8,/, '')).trim();
    expect(kept).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(await page.locator('#receipt-check').getAttribute('href')).toBe(`/fairness?showtime=${showtimeId}`);
    await page.reload();
    await page.locator('#receipt-note').waitFor({ state: 'visible' });
    expect(await page.locator('#receipt-download').getAttribute('href')).toBe(download);
    // Before the end: said so, nothing else.
    await page.goto(`${stack.edgeUrl}/fairness?showtime=${showtimeId}`);
    await page.getByRole('button', { name: 'Check' }).click();
    await expect
      .poll(() => page.locator('#fairness-alert').textContent())
      .toContain(translate('en', 'fairness.notEnded'));

    await stack.configureRoom(showtimeId, { ...quickRoom(5), state: 'closed' });
    // The core's copier job is off in this stack: one pass by hand.
    const journal = createFairnessJournal({ store: createIoredisStore(redis), keyPrefix: stack.engine.keys.prefix });
    expect(await copyJournal({ sql: stack.sql, journal }, showtimeId)).toBeGreaterThanOrEqual(6);

    await page.goto(`${stack.edgeUrl}/fairness`);
    await page.getByLabel('Showtime number').fill(String(showtimeId));
    await page.getByLabel('Your receipt (optional)').fill(buyers[1].receipt);
    await page.getByRole('button', { name: 'Check' }).click();
    const verdict = page.locator('#fairness-verdict');
    // (the browser's own join, kept above, is checked at the end)
    await expect.poll(() => verdict.textContent()).toBe(translate('en', 'fairness.verified'));
    expect(await verdict.getAttribute('data-verdict')).toBe('verified');
    expect(await page.locator('#fairness-mine').textContent()).toContain(
      translate('en', 'fairness.yourPlace', { rank: 2 }),
    );
    expect(await page.locator('#fairness-mine').textContent()).toContain(translate('en', 'fairness.admitted'));
    expect(await page.locator('#fairness-checks li').allTextContents()).toContain(
      `${translate('en', 'fairness.passed')}: ${translate('en', 'fairness.check.receipt_in_log')}`,
    );
    expect(await accessibilityIssues(page)).toEqual([]);
    await buyer.shot('fairness-verified');

    // Broken variant: the receipt's place changed by hand, its signature no longer holds.
    const [header, payload, signature] = buyers[1].receipt.split('.');
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString());
    const forged = `${header}.${Buffer.from(JSON.stringify({ ...claims, rank: 1 })).toString('base64url')}.${signature}`;
    await page.getByLabel('Your receipt (optional)').fill(forged);
    await page.getByLabel('Showtime number').fill('');
    await page.getByRole('button', { name: 'Check' }).click();
    await expect.poll(() => verdict.textContent()).toBe(translate('en', 'fairness.failed'));
    expect(await page.locator('#fairness-checks li').allTextContents()).toContain(
      `${translate('en', 'fairness.notPassed')}: ${translate('en', 'fairness.check.receipt')}`,
    );
    expect(await accessibilityIssues(page)).toEqual([]);

    // In Chinese, from the same form.
    await page.getByRole('link', { name: '简体中文' }).click();
    await page.getByLabel(translate('zh-CN', 'fairness.receipt')).fill(kept);
    await page.getByRole('button', { name: translate('zh-CN', 'fairness.submit') }).click();
    await expect.poll(() => verdict.textContent()).toBe(translate('zh-CN', 'fairness.verified'));
    expect(await page.locator('#fairness-mine').textContent()).toContain(
      translate('zh-CN', 'fairness.yourPlace', { rank: 4 }),
    );
  });
});
