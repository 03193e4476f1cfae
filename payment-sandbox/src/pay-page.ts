import { html, raw } from 'hono/html';
import type { HtmlEscapedString } from 'hono/utils/html';
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
export function formatAmount(amount: number, currency: string): string {
  try {
    const format = new Intl.NumberFormat('en', { style: 'currency', currency });
    const digits = format.resolvedOptions().maximumFractionDigits ?? 2;
    return format.format(amount / 10 ** digits);
  } catch {
    return `${(amount / 100).toFixed(2)} ${currency}`;
  }
}

const STYLE = raw(`
  *{box-sizing:border-box}
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

function layout(title: string, _nonce: string, body: Html, script: Html | '' = ''): Html {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${title} · Payment sandbox</title>
<style>${STYLE}</style>
</head>
<body><main>${body}</main>${script}</body>
</html>`;
}

/** The countdown is progressive enhancement: without script the absolute time still shows. */
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
      document.getElementById('status').textContent = 'This payment session has expired.';
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
  return description.split('\n').map((line) => line.trim()).filter(Boolean);
}

function purchaseRows(payment: Payment): Html {
  const lines = purchaseLines(payment);
  if (lines.length === 0) return html`<dt>Reference</dt><dd>${payment.reference}</dd>
    <dt>Payment</dt><dd>${payment.id}</dd>`;
  return html`<dt>For</dt><dd class="purchase">${lines.map((line, i) => (i === 0 ? html`<strong>${line}</strong>` : html`<br>${line}`))}</dd>`;
}

/** A short name of the purchase for sentences: its first line, or the merchant's reference. */
const purchaseName = (payment: Payment) => purchaseLines(payment)[0] ?? `reference ${payment.reference}`;

export function renderPayPage(payment: Payment, nowMs: number, nonce: string): Html {
  const amount = formatAmount(payment.amount, payment.currency);
  const expiresAt = new Date(payment.expiresAtMs).toISOString();
  const remainingMs = Math.max(0, payment.expiresAtMs - nowMs);
  const expiresLabel = `${expiresAt.slice(0, 10)} ${expiresAt.slice(11, 19)} UTC`;
  const body = html`<div class="card">
  <span class="badge">Test mode · no real money moves</span>
  <h1>Pay ${amount}</h1>
  <dl>
    ${purchaseRows(payment)}
    <dt>Amount</dt><dd class="amount-line">${amount}</dd>
    <dt>Time left</dt><dd><time id="countdown" datetime="${expiresAt}" data-remaining-ms="${remainingMs}">${formatRemaining(remainingMs)}</time>
      <small>(until ${expiresLabel})</small></dd>
  </dl>
  <p id="status" role="status" aria-live="polite"></p>
  <div class="actions">
    <form method="post" action="/pay/${payment.id}/approve"><button class="approve" type="submit">Approve payment</button></form>
    <form method="post" action="/pay/${payment.id}/decline"><button class="decline" type="submit">Decline payment</button></form>
  </div>
</div>`;
  return layout(`Pay ${amount}`, nonce, body, countdownScript(nonce));
}

export function renderExpiredPage(payment: Payment, nonce: string): Html {
  const body = html`<div class="card">
  <h1>This payment session has expired</h1>
  <p class="notice" role="alert">The time to pay ${formatAmount(payment.amount, payment.currency)} for
  ${purchaseName(payment)} has run out. Nothing was charged.</p>
  <a class="button" href="${returnRedirectUrl(payment)}">Return to the shop</a>
</div>`;
  return layout('Payment expired', nonce, body);
}

const DECIDED_TEXT: Record<string, string> = {
  succeeded: 'This payment was approved.',
  refunded: 'This payment was approved and has since been refunded.',
  failed: 'This payment was declined. Nothing was charged.',
};

export function renderDecidedPage(payment: Payment, nonce: string): Html {
  const body = html`<div class="card">
  <h1>Payment ${payment.status}</h1>
  <p role="status">${DECIDED_TEXT[payment.status] ?? ''} Amount ${formatAmount(payment.amount, payment.currency)},
  for ${purchaseName(payment)}.</p>
  <a class="button" href="${returnRedirectUrl(payment)}">Return to the shop</a>
</div>`;
  return layout(`Payment ${payment.status}`, nonce, body);
}

export function renderNotFoundPage(nonce: string): Html {
  const body = html`<div class="card"><h1>Payment not found</h1>
  <p>This payment link is unknown or no longer kept by the sandbox.</p></div>`;
  return layout('Payment not found', nonce, body);
}
