import { html, raw } from 'hono/html';
import type { HtmlEscapedString } from 'hono/utils/html';
import { DEFAULT_LOCALE, formatDateTimeIn, type Locale } from '../../lib/i18n/locale';
import { translator, type Translate } from '../../lib/i18n/translate';
import { returnRedirectUrl, type Payment } from './model';

type Html = HtmlEscapedString | Promise<HtmlEscapedString>;

/** No external requests: inline styles, one inline script allowed by nonce, nothing else. */
export function pageSecurityHeaders(nonce: string): Record<string, string> {
  return {
    'Content-Security-Policy': `default-src 'none'; style-src 'unsafe-inline'; script-src 'nonce-${nonce}'; base-uri 'none'; frame-ancestors 'none'`,
    'Referrer-Policy': 'no-referrer',
    'X-Content-Type-Options': 'nosniff',
    'Cache-Control': 'no-store',
  };
}

export function newNonce(): string {
  return btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(16))));
}

/** Minor units to a display amount; the currency's own number of decimals (JPY has none). */
export function formatAmount(amount: number, currency: string, locale: Locale = DEFAULT_LOCALE): string {
  try {
    const format = new Intl.NumberFormat(locale, { style: 'currency', currency });
    const digits = format.resolvedOptions().maximumFractionDigits ?? 2;
    return format.format(amount / 10 ** digits);
  } catch {
    return `${(amount / 100).toFixed(2)} ${currency}`;
  }
}

const STYLE = raw(`
  *{box-sizing:border-box}
  [hidden]{display:none!important}
  body{font:1.05rem/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0;background:#f4f5f7;color:#1b1d21}
  main{max-width:28rem;margin:0 auto;padding:1.5rem 1rem}
  .card{background:#fff;border-radius:.75rem;padding:1.25rem;box-shadow:0 1px 3px rgba(0,0,0,.12)}
  .badge{display:inline-block;font-size:.8rem;font-weight:600;padding:.1rem .5rem;border-radius:1rem;background:#fff3bf;color:#5c4a00}
  .amount{font-size:2rem;font-weight:700;margin:.25rem 0}
  dl{display:grid;grid-template-columns:auto 1fr;gap:.25rem 1rem;margin:1rem 0}
  dt{color:#555}dd{margin:0;overflow-wrap:anywhere}
  .actions{display:grid;gap:.75rem;margin-top:1.25rem}
  button,.button{display:block;width:100%;min-height:3rem;font:inherit;font-weight:600;border-radius:.5rem;border:2px solid transparent;cursor:pointer;text-align:center;text-decoration:none;padding:.6rem}
  .approve{background:#1b6e3a;color:#fff}.decline{background:#fff;color:#9b1c1c;border-color:#9b1c1c}
  .button{background:#1b1d21;color:#fff}
  button:focus-visible,.button:focus-visible{outline:3px solid #1a56db;outline-offset:2px}
  button[disabled]{opacity:.5;cursor:not-allowed}
  .notice{padding:.75rem;border-radius:.5rem;background:#fde8e8;color:#771d1d}
`);

function layout(
  title: string,
  _nonce: string,
  body: Html,
  script: Html | '' = '',
  locale: Locale = DEFAULT_LOCALE,
): Html {
  const t = translator(locale);
  return html`<!doctype html>
<html lang="${locale}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${title} · ${t('payPage.sandbox')}</title>
<style>${STYLE}</style>
</head>
<body><main>${body}</main>${script}</body>
</html>`;
}

/**
 * The countdown is progressive enhancement: without script the absolute time still shows.
 * At zero the buttons stop and the way back to the shop appears (the hold may still be live
 * there), so an expired page is never a dead end.
 */
const countdownScript = (nonce: string) => html`<script nonce="${nonce}">
(function () {
  var el = document.getElementById('countdown');
  if (!el) return;
  // Counted from the server's remaining time, so a wrong phone clock cannot skew it.
  var deadline = Date.now() + Number(el.getAttribute('data-remaining-ms'));
  function tick() {
    var left = Math.max(0, Math.round((deadline - Date.now()) / 1000));
    el.textContent = Math.floor(left / 60) + ':' + String(left % 60).padStart(2, '0');
    if (left === 0) {
      var buttons = document.querySelectorAll('form button');
      for (var i = 0; i < buttons.length; i++) buttons[i].disabled = true;
      var status = document.getElementById('status');
      status.textContent = status.getAttribute('data-expired');
      var back = document.getElementById('back-to-shop');
      if (back) back.hidden = false;
      return;
    }
    setTimeout(tick, 1000);
  }
  tick();
})();
</script>`;

export function formatRemaining(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}`;
}

/**
 * What the buyer is paying for, as the merchant described it: `metadata.description`, one line
 * per item of the purchase (a film, its time, the place, the seats). Internal ids (the
 * merchant's reference, the payment id) are shown only when there is no description.
 */
export function purchaseLines(payment: Payment): string[] {
  const description = payment.metadata.description ?? '';
  return description
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean);
}

function purchaseRows(payment: Payment, t: Translate): Html {
  const lines = purchaseLines(payment);
  if (lines.length === 0)
    return html`<dt>${t('payPage.reference')}</dt><dd>${payment.reference}</dd>
    <dt>${t('payPage.payment')}</dt><dd>${payment.id}</dd>`;
  return html`<dt>${t('payPage.for')}</dt><dd class="purchase">${lines.map((line, i) => (i === 0 ? html`<strong>${line}</strong>` : html`<br>${line}`))}</dd>`;
}

/** A short name of the purchase for sentences: its first line, or the merchant's reference. */
const purchaseName = (payment: Payment, t: Translate) =>
  purchaseLines(payment)[0] ?? t('payPage.referenceOf', { reference: payment.reference });

/** Where the buyer goes back to when the session ran out on this page: the shop, told it failed (nothing charged). */
export function expiredReturnUrl(payment: Payment): string {
  const url = new URL(returnRedirectUrl(payment));
  url.searchParams.set('status', 'failed');
  return url.toString();
}

/** The page's own links keep the buyer's language (the sandbox is another origin: no shared cookie). */
const withLang = (path: string, locale: Locale) =>
  locale === DEFAULT_LOCALE ? path : `${path}?lang=${encodeURIComponent(locale)}`;

export function renderPayPage(payment: Payment, nowMs: number, nonce: string, locale: Locale = DEFAULT_LOCALE): Html {
  const t = translator(locale);
  const amount = formatAmount(payment.amount, payment.currency, locale);
  const expiresAt = new Date(payment.expiresAtMs).toISOString();
  const remainingMs = Math.max(0, payment.expiresAtMs - nowMs);
  const expiresLabel = formatDateTimeIn(locale, new Date(payment.expiresAtMs), { timeZone: 'UTC' });
  const body = html`<div class="card">
  <span class="badge">${t('payPage.testMode')}</span>
  <h1>${t('payPage.pay', { amount })}</h1>
  <dl>
    ${purchaseRows(payment, t)}
    <dt>${t('payPage.amount')}</dt><dd class="amount-line">${amount}</dd>
    <dt>${t('payPage.timeLeft')}</dt><dd><time id="countdown" datetime="${expiresAt}" data-remaining-ms="${remainingMs}">${formatRemaining(remainingMs)}</time>
      <small>${t('payPage.until', { time: expiresLabel })}</small></dd>
  </dl>
  <p id="status" role="status" aria-live="polite" data-expired="${t('payPage.expiredNow')}"></p>
  <div class="actions">
    <form method="post" action="${withLang(`/pay/${payment.id}/approve`, locale)}"><button class="approve" type="submit">${t('payPage.approve')}</button></form>
    <form method="post" action="${withLang(`/pay/${payment.id}/decline`, locale)}"><button class="decline" type="submit">${t('payPage.decline')}</button></form>
    <a id="back-to-shop" class="button" href="${expiredReturnUrl(payment)}" hidden>${t('payPage.backToHold')}</a>
  </div>
</div>`;
  return layout(t('payPage.pay', { amount }), nonce, body, countdownScript(nonce), locale);
}

export function renderExpiredPage(payment: Payment, nonce: string, locale: Locale = DEFAULT_LOCALE): Html {
  const t = translator(locale);
  const body = html`<div class="card">
  <h1>${t('payPage.expired.title')}</h1>
  <p class="notice" role="alert">${t('payPage.expired.text', { amount: formatAmount(payment.amount, payment.currency, locale), what: purchaseName(payment, t) })}</p>
  <a class="button" href="${returnRedirectUrl(payment)}">${t('payPage.backToHold')}</a>
</div>`;
  return layout(t('payPage.expired.title'), nonce, body, '', locale);
}

const DECIDED = {
  succeeded: ['payPage.decided.title.succeeded', 'payPage.decided.succeeded'],
  refunded: ['payPage.decided.title.refunded', 'payPage.decided.refunded'],
  failed: ['payPage.decided.title.failed', 'payPage.decided.failed'],
} as const;

export function renderDecidedPage(payment: Payment, nonce: string, locale: Locale = DEFAULT_LOCALE): Html {
  const t = translator(locale);
  const words = DECIDED[payment.status as keyof typeof DECIDED];
  const title = words ? t(words[0]) : payment.status;
  const body = html`<div class="card">
  <h1>${title}</h1>
  <p role="status">${words ? t(words[1]) : ''} ${t('payPage.decided.amount', { amount: formatAmount(payment.amount, payment.currency, locale), what: purchaseName(payment, t) })}</p>
  <a class="button" href="${returnRedirectUrl(payment)}">${t('payPage.return')}</a>
</div>`;
  return layout(title, nonce, body, '', locale);
}

export function renderNotFoundPage(nonce: string, locale: Locale = DEFAULT_LOCALE): Html {
  const t = translator(locale);
  const body = html`<div class="card"><h1>${t('payPage.notFound.title')}</h1>
  <p>${t('payPage.notFound.text')}</p></div>`;
  return layout(t('payPage.notFound.title'), nonce, body, '', locale);
}
