/**
 * The page shell and the helpers every page uses. Templates are hono/html tagged templates:
 * every interpolated value is HTML-escaped unless it is itself a template (or `raw`), so
 * names from the catalog or an operator cannot inject markup.
 */
import type { Context } from 'hono';
import { getCookie } from 'hono/cookie';
import { html } from 'hono/html';
import type { HtmlEscapedString } from 'hono/utils/html';
import {
  chooseLocale,
  DEFAULT_LOCALE,
  formatMoneyIn,
  LOCALE_COOKIE,
  LOCALE_NAMES,
  LOCALES,
  type Locale,
} from '../../../lib/i18n/locale';
import { translator } from '../../../lib/i18n/translate';
import { assetUrl, type AssetName } from './assets';

export type Html = HtmlEscapedString | Promise<HtmlEscapedString>;
export { html };

export interface LayoutOptions {
  title: string;
  /** Client scripts, loaded in order with `defer` from /assets (no inline script: strict CSP). */
  scripts?: AssetName[];
  /** A short line under the site name, e.g. "Operator console". */
  area?: string;
  homeHref?: string;
  /** Extra header content at the right (the console's sign-out button). */
  headerExtra?: Html;
  /** The buyers' footer; false on operator pages. */
  footer?: boolean;
  /** The page's language (`lang` on <html>, the words of the shell); English when not given. */
  locale?: Locale;
  /** Buyer pages: the path (and query) to come back to after switching language. */
  languageSwitch?: string;
}

/** Links to the page in each other language; /language sets the cookie and comes back here. */
function languageSwitch(locale: Locale, back: string): Html {
  const t = translator(locale);
  return html`<nav class="language-switch" aria-label="${t('site.language')}">${LOCALES.filter((l) => l !== locale).map(
    (l) =>
      html`<a href="/language/${l}?back=${encodeURIComponent(back)}" lang="${l}" hreflang="${l}">${LOCALE_NAMES[l]}</a>`,
  )}</nav>`;
}

/**
 * Scripts and styles only from this origin, no inline script, no frames, no plug-ins:
 * the pages make no external requests at all (README, "Pages"), and the CSP makes sure of it.
 */
export const PAGE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

export function pageHeaders(c: Context) {
  c.header('Content-Security-Policy', PAGE_CSP);
  c.header('X-Content-Type-Options', 'nosniff');
  c.header('Referrer-Policy', 'same-origin');
  c.header('Cache-Control', 'no-store');
}

export function layout(options: LayoutOptions, body: Html): Html {
  const locale = options.locale ?? DEFAULT_LOCALE;
  const t = translator(locale);
  return html`<!doctype html>
<html lang="${locale}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${options.title}</title>
<link rel="stylesheet" href="${assetUrl('styles.css')}">
<link rel="icon" href="data:,">
${(options.scripts ?? []).map((name) => html`<script defer src="${assetUrl(name)}"></script>`)}
</head>
<body>
<a class="skip-link" href="#main">${t('site.skip')}</a>
<header class="site-header">
  <a class="brand" href="${options.homeHref ?? '/'}">${t('site.name')}</a>
  ${options.area ? html`<span class="area">${options.area}</span>` : ''}
  ${options.languageSwitch !== undefined ? html`<a class="header-link" href="/bookings">${t('site.myBookings')}</a>${languageSwitch(locale, options.languageSwitch)}` : ''}
  ${options.headerExtra ?? ''}
</header>
<main id="main" tabindex="-1">
${body}
</main>
${options.footer === false ? '' : html`<footer class="site-footer"><p>${t('site.footer')} <a href="/fairness">${t('site.checkPlace')}</a></p></footer>`}
</body>
</html>`;
}

/** "Sat 12 Dec, 20:00" in the server's locale-neutral form; the client re-renders in local time. */
export function timeElement(iso: string, format: 'datetime' | 'time' = 'datetime'): Html {
  const date = new Date(iso);
  const text = Number.isNaN(date.getTime()) ? iso : date.toISOString().replace('T', ' ').slice(0, 16) + ' UTC';
  return html`<time datetime="${iso}" data-local="${format}">${text}</time>`;
}

export function formatMoney(cents: number, currency: string, locale: Locale = DEFAULT_LOCALE): string {
  return formatMoneyIn(locale, cents, currency);
}

/** A whole page that explains a failure in plain words (404, 503). */
export function messagePage(
  title: string,
  message: string,
  action?: { href: string; label: string },
  locale: Locale = DEFAULT_LOCALE,
  back?: string,
): Html {
  return layout(
    { title, scripts: ['buyer.js'], locale, ...(back !== undefined ? { languageSwitch: back } : {}) },
    html`<section class="panel notice" aria-labelledby="message-title">
  <h1 id="message-title">${title}</h1>
  <p>${message}</p>
  ${action ? html`<p><a class="button" href="${action.href}">${action.label}</a></p>` : ''}
</section>`,
  );
}

/** The HTML 404 for a browser that asked for a page we do not have. */
export function pageNotFound(c: Context) {
  pageHeaders(c);
  const locale = requestLocale(c);
  const t = translator(locale);
  return c.html(
    messagePage(
      t('page.notFound.title'),
      t('page.notFound.text'),
      { href: '/', label: t('page.allShowtimes') },
      locale,
    ),
    404,
  );
}

/** The buyer's language for this request: the switch's cookie, else Accept-Language, else English. */
export function requestLocale(c: Context): Locale {
  return chooseLocale(getCookie(c, LOCALE_COOKIE), c.req.header('accept-language'));
}
