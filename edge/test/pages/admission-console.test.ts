/**
 * The console's admission control panel in real headless Chromium: the closed loop's state
 * (target against effective rate, why, seats left against the turns they allow) as a
 * governor reports it, a cut when the seat service's holds are slow, and the operator
 * switching the loop off for the room (confirmed, applied, audited).
 */
import type { Browser } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { coreHealthReader, createAdmissionGovernor, type ReadCoreHealth } from '../../../queue/src/admission-governor';
import { accessibilityIssues } from './accessibility';
import { openPage } from './browser';
import { quickRoom, STACK_ADMIN_TOKEN, useBrowserStack, type BrowserStack } from './browser-stack';

let stack: BrowserStack;
let browser: Browser;

useBrowserStack((b, s) => ((browser = b), (stack = s)));

describe('admission control in the console', () => {
  it('shows the loop cutting the rate and why, and lets the operator switch it off', async () => {
    const title = `Loop Night ${process.pid}-${Date.now() % 1_000_000}`;
    const showtimeId = await stack.createShowtime({ title });
    await stack.configureRoom(showtimeId, { ...quickRoom(5), admitPerMinute: 600, admitBurst: 50 });
    const real = coreHealthReader({ coreUrl: stack.core.url, adminToken: STACK_ADMIN_TOKEN });
    // The seat service's real health and seats, and then the same with holds taking 2.5 s.
    let slow = false;
    const readHealth: ReadCoreHealth = async (ids) => {
      const report = await real(ids);
      return slow ? { ...report, health: { ...report.health, holdP95Ms: 2_500 } } : report;
    };
    // Stepped by hand here: its decisions hold for a minute, longer than the page takes to sign in.
    const governor = createAdmissionGovernor({ engine: stack.engine, readHealth, validForMs: 60_000 });
    await governor.governAll();

    const operator = await openPage(browser);
    const { page } = operator;
    await page.goto(`${stack.edgeUrl}/admin`);
    await page.getByLabel('Admin token').fill(STACK_ADMIN_TOKEN);
    await page.getByLabel('Your name (for the audit log)').fill('Lin Operator');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Waiting rooms' }).waitFor();
    await page.getByRole('link', { name: title }).click();

    const panel = page.getByRole('region', { name: 'Admission control' });
    await expect.poll(() => page.locator('#v-admitEffective').textContent(), { timeout: 10_000 }).toBe('600 a minute');
    expect(await page.locator('#v-admitTarget').textContent()).toBe('600 a minute');
    expect(await page.locator('#v-admitRange').textContent()).toBe('60 to 600 a minute');
    expect(await page.locator('#v-seatsLeft').textContent()).toBe('24 (about 1 a buyer)');
    expect(await page.locator('#v-turnCap').textContent()).toBe('0 of 30');
    expect(await page.locator('#admission-reason').textContent()).toBe('Healthy: admitting at the ceiling.');
    expect(await panel.getByLabel("Follow the seat service's health and the seats left").isChecked()).toBe(true);
    expect(await accessibilityIssues(page)).toEqual([]);
    await operator.shot('60-console-admission-healthy');

    // Holds slow down: the next step halves the rate, and the console says why.
    slow = true;
    await governor.governAll();
    await expect.poll(() => page.locator('#v-admitEffective').textContent(), { timeout: 10_000 }).toBe('300 a minute');
    expect(await page.locator('#v-admitTarget').textContent()).toBe('600 a minute');
    expect(await page.locator('#admission-reason').textContent()).toBe(
      'Cut: holds are slow (holds take 2500 ms (p95; limit 800 ms)).',
    );
    await operator.shot('61-console-admission-cut');

    // The operator switches the loop off for this room: asked first, then the rate as set.
    await panel.getByLabel("Follow the seat service's health and the seats left").uncheck();
    await panel.getByRole('button', { name: 'Apply admission control' }).click();
    expect(await page.getByRole('dialog').textContent()).toContain('follow the seat service from true to false');
    await page.getByRole('button', { name: 'Yes, apply it' }).click();
    await expect
      .poll(() => page.locator('#admission-reason').textContent(), { timeout: 10_000 })
      .toBe('Off for this room: admitting at the rate as set.');
    expect(await page.locator('#v-admitEffective').textContent()).toBe('600 a minute');
    expect(await page.locator('#v-admitRange').textContent()).toBe('off');
    await expect
      .poll(() => page.locator('#audit-rows').textContent(), { timeout: 10_000 })
      .toContain('adaptiveAdmission: true → false');
    const settings = await stack.engine.getSettings(String(showtimeId));
    expect(settings.ok && settings.settings.adaptiveAdmission).toBe(0);
    // The operator API says the same.
    const room = await stack.api('GET', `/api/admin/showtimes/${showtimeId}/room`, { token: STACK_ADMIN_TOKEN });
    expect(room.json).toMatchObject({
      effectiveAdmitPerMinute: 600,
      admission: { reason: 'off', adaptive: false },
      settings: { adaptiveAdmission: false },
    });
    // Out of bounds: said in plain words, nothing sent.
    await panel.getByLabel(/Floor, admissions per minute/).fill('900');
    await panel.getByLabel(/Ceiling, admissions per minute/).fill('100');
    await panel.getByRole('button', { name: 'Apply admission control' }).click();
    await expect
      .poll(() => page.locator('#console-alert').textContent())
      .toBe('The floor must not be above the ceiling.');
    expect(await accessibilityIssues(page)).toEqual([]);
    await operator.shot('62-console-admission-off');
    expect(operator.errors).toEqual([]);
    await operator.context.close();
  });
});
