/**
 * Headless Chromium from Debian, driven by playwright-core. No browser is downloaded: if
 * /usr/bin/chromium (or CHROMIUM_PATH) is missing, launching throws and the tests fail
 * loudly. Every page's console errors and uncaught exceptions are collected, and each step
 * is saved as a screenshot under test-artifacts/pages/.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';

export const ARTIFACTS = join(process.cwd(), 'test-artifacts', 'pages');
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM))
    throw new Error(`Chromium not found at ${CHROMIUM}: install it (apt-get install -y chromium) or set CHROMIUM_PATH`);
  mkdirSync(ARTIFACTS, { recursive: true });
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-quic',
      '--no-first-run',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

export interface WatchedPage {
  page: Page;
  context: BrowserContext;
  /** Console errors and page exceptions seen so far. */
  errors: string[];
  /** Requests that left the loopback stack (there must be none). */
  external: string[];
  shot(name: string): Promise<void>;
}

export async function openPage(
  browser: Browser,
  options: { viewport?: { width: number; height: number }; locale?: string } = {},
): Promise<WatchedPage> {
  // `locale` sets the browser's language (its Accept-Language), as a buyer's own browser would.
  const context = await browser.newContext({
    viewport: options.viewport ?? { width: 1100, height: 900 },
    ...(options.locale ? { locale: options.locale } : {}),
  });
  const page = await context.newPage();
  const errors: string[] = [];
  const external: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(`${page.url()}: ${message.text()}`);
  });
  page.on('pageerror', (error) => errors.push(`${page.url()}: ${error.message}`));
  page.on('request', (request) => {
    const url = new URL(request.url());
    if (url.protocol.startsWith('http') && url.hostname !== '127.0.0.1') external.push(request.url());
  });
  return {
    page,
    context,
    errors,
    external,
    async shot(name: string) {
      await page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });
    },
  };
}

/**
 * Waits until a sale-page step is shown; if the page shows an alert instead, fails at once
 * with the alert's words (what the buyer would read), not after a timeout.
 */
export async function waitForStep(page: Page, stepId: string, timeoutMs = 20_000): Promise<void> {
  const handle = await page.waitForFunction(
    (id) => {
      const step = document.getElementById(id);
      const alert = document.getElementById('alert');
      if (step && !step.hidden) return 'ok';
      if (alert && !alert.hidden && alert.textContent) return `alert: ${alert.textContent}`;
      return false;
    },
    stepId,
    { timeout: timeoutMs, polling: 100 },
  );
  const outcome = await handle.jsonValue();
  if (outcome !== 'ok') throw new Error(`expected step ${stepId}, the page says ${String(outcome)}`);
}
