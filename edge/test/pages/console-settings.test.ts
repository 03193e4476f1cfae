/**
 * Every operator setting has a console input with the registry's bounds, and the ones the
 * console lacked before (proof of work, places per address) and the admission burst are set
 * from it in real headless Chromium, confirmed, and applied: the room in real Redis has them
 * and the real edge acts on them (a join asks for proof of work; a second place from the same
 * address is refused).
 */
import type { Browser, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { apiNameOf, OPERATOR_SETTING_NAMES, settingSpec } from '../../../lib/room-settings-registry';
import { accessibilityIssues } from './accessibility';
import { openPage } from './browser';
import { quickRoom, STACK_ADMIN_TOKEN, useBrowserStack, type BrowserStack } from './browser-stack';

let stack: BrowserStack;
let browser: Browser;

useBrowserStack((b, s) => ((browser = b), (stack = s)));

async function engineSettings(showtimeId: number) {
  const read = await stack.engine.getSettings(String(showtimeId));
  if (!read.ok) throw new Error(`no room ${showtimeId}`);
  return read.settings;
}

/** Fills the inputs, presses the form's button, checks the confirmation and says yes. */
async function applyFromConsole(page: Page, values: Record<string, string>, button: string, confirmation: string) {
  for (const [id, value] of Object.entries(values)) await page.locator(`#${id}`).fill(value);
  await page.getByRole('button', { name: button }).click();
  const dialog = page.getByRole('dialog');
  await dialog.waitFor();
  expect(await dialog.textContent()).toContain(confirmation);
  await page.getByRole('button', { name: 'Yes, apply it' }).click();
  await dialog.waitFor({ state: 'hidden' });
}

describe('room settings in the console', () => {
  it('shows an input for every operator setting and applies proof of work, places per address and the burst', async () => {
    const title = `Settings Night ${process.pid}-${Date.now() % 1_000_000}`;
    const showtimeId = await stack.createShowtime({ title });
    await stack.configureRoom(showtimeId, quickRoom(5));

    const operator = await openPage(browser);
    const { page } = operator;
    await page.goto(`${stack.edgeUrl}/admin`);
    await page.getByLabel('Admin token').fill(STACK_ADMIN_TOKEN);
    await page.getByLabel('Your name (for the audit log)').fill('Registry Operator');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Waiting rooms' }).waitFor();
    await page.getByRole('link', { name: title }).click();

    // Every operator setting: an input found by its label, with the operator API's bounds, filled live.
    await expect.poll(() => page.locator('#powDifficulty').inputValue(), { timeout: 10_000 }).toBe('0');
    for (const name of OPERATOR_SETTING_NAMES) {
      const spec = settingSpec(name);
      const input = page.getByLabel(spec.label, { exact: true });
      expect(await input.getAttribute('id'), name).toBe(apiNameOf(name));
      if (spec.kind === 'flag') continue;
      expect([await input.getAttribute('min'), await input.getAttribute('max')], name).toEqual([
        String(spec.operator!.min),
        String(spec.operator!.max),
      ]);
    }
    expect(await page.locator('#placesPerAddress').inputValue()).toBe('200');
    expect(await accessibilityIssues(page)).toEqual([]);
    await operator.shot('62-console-protection-inputs');

    // Beyond the bound: said in words, nothing sent.
    await page.locator('#powDifficulty').fill('19');
    await page.getByRole('button', { name: 'Apply protection and limits' }).click();
    expect(await page.getByRole('alert').textContent()).toBe('The proof of work must be a whole number from 0 to 16.');
    expect((await engineSettings(showtimeId)).powDifficulty).toBe(0);

    await applyFromConsole(
      page,
      { powDifficulty: '4', placesPerAddress: '1' },
      'Apply protection and limits',
      'proof of work (bits) from 0 to 4; places per address from 200 to 1',
    );
    await expect.poll(async () => (await engineSettings(showtimeId)).powDifficulty, { timeout: 10_000 }).toBe(4);
    expect((await engineSettings(showtimeId)).placesPerAddress).toBe(1);
    await expect
      .poll(() => page.locator('#audit-rows').textContent(), { timeout: 10_000 })
      .toContain('powDifficulty: 0 → 4');
    // The real edge asks a joiner for the proof of work now.
    const { json: login } = await stack.api('POST', '/api/auth/demo', {
      body: { customerId: `settings-${showtimeId}-a` },
    });
    const asked = await stack.api('POST', `/api/showtimes/${showtimeId}/queue`, { token: login.token });
    expect([asked.status, asked.json?.error?.code, asked.json?.difficulty]).toEqual([428, 'POW_REQUIRED', 4]);

    await applyFromConsole(page, { admitBurst: '7' }, 'Apply settings', 'admissions at once from 1000 to 7');
    await expect.poll(async () => (await engineSettings(showtimeId)).admitBurst, { timeout: 10_000 }).toBe(7);

    // Proof of work off again; one place per address: the second buyer from 127.0.0.1 is refused.
    await applyFromConsole(
      page,
      { powDifficulty: '0' },
      'Apply protection and limits',
      'proof of work (bits) from 4 to 0',
    );
    await expect.poll(async () => (await engineSettings(showtimeId)).powDifficulty, { timeout: 10_000 }).toBe(0);
    const first = await stack.api('POST', `/api/showtimes/${showtimeId}/queue`, { token: login.token });
    expect(first.status).toBe(200);
    const { json: other } = await stack.api('POST', '/api/auth/demo', {
      body: { customerId: `settings-${showtimeId}-b` },
    });
    const second = await stack.api('POST', `/api/showtimes/${showtimeId}/queue`, { token: other.token });
    expect([second.status, second.json?.error?.code]).toEqual([403, 'ADDRESS_PLACE_LIMIT']);
    expect(await page.locator('#admitBurst').inputValue()).toBe('7');
    await operator.shot('63-console-protection-applied');
  });
});
