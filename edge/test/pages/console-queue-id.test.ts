/**
 * Support in the operator console: a buyer reads out the queue id on their waiting page, the
 * operator types it into the room's page and reads where that buyer stands; a mistyped id is
 * said to be one, not taken for someone else's. Laptop and 390 px phone.
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
  ['a laptop', { width: 1366, height: 800 }, ''],
  ['a 390 px phone', { width: 390, height: 844 }, 'phone-'],
] as const;

describe.each(VIEWPORTS)('queue id search in the console on %s', (_name, viewport, shotPrefix) => {
  it('finds the buyer who quotes an id, and says so when an id is mistyped', async () => {
    const showtimeId = await stack.createShowtime({ title: `Support Desk ${shotPrefix || 'laptop'}` });
    await stack.configureRoom(showtimeId, { ...quickRoom(1), admitPerMinute: 1, admitBurst: 1 });
    const admitted = await stack.apiBuyer(showtimeId, `desk-a-${shotPrefix}${showtimeId}`);
    const waiting = await stack.apiBuyer(showtimeId, `desk-b-${shotPrefix}${showtimeId}`);
    expect([admitted.state, waiting.state]).toEqual(['admitted', 'waiting']);

    const operator = await openPage(browser, { viewport });
    const { page } = operator;
    await page.goto(`${stack.edgeUrl}/admin`);
    await page.getByLabel('Admin token').fill(STACK_ADMIN_TOKEN);
    await page.getByLabel('Your name (for the audit log)').fill('Sam Support');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Waiting rooms' }).waitFor();
    await page.goto(`${stack.edgeUrl}/admin/showtimes/${showtimeId}`);

    const find = async (quoted: string) => {
      await page.getByLabel('Queue id the buyer reads out').fill(quoted);
      await page.getByRole('button', { name: 'Find', exact: true }).click();
      await expect.poll(() => page.locator('#queue-id-result').textContent()).not.toMatch(/^(Looking it up…)?$/);
      return (await page.locator('#queue-id-result').textContent()) ?? '';
    };
    // Read out loud, in lower case with a space: still found.
    expect(await find((waiting.queueId as string).toLowerCase().replace('-', ' '))).toMatch(
      new RegExp(`^${waiting.queueId} \\(customer .+\\) is waiting in line: number 1 of 1\\.$`),
    );
    expect(await find(admitted.queueId as string)).toMatch(/has been let in and is choosing seats until .+\.$/);
    const id = waiting.queueId as string;
    expect(await find(`${id.slice(0, 8)}${id[8] === '0' ? '1' : '0'}`)).toBe(
      'No place in this line has that queue id. Check it for mistyped characters (it has 8, such as K7QM-2XPD).',
    );
    expect(await accessibilityIssues(page)).toEqual([]);
    await operator.shot(`${shotPrefix}25-console-queue-id`);
    expect(operator.errors.filter((e) => !e.includes('status of 404'))).toEqual([]);
    await operator.context.close();
  });
});
