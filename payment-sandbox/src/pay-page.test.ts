import { afterEach, describe, expect, it } from 'vitest';
import { formatAmount } from './pay-page';
import { createTestSandbox, type TestSandbox } from './test-helpers';

let sandbox: TestSandbox;
afterEach(() => sandbox?.close());

const page = (path: string, method = 'GET') => sandbox.app.request(path, { method });

describe('hosted pay page', () => {
  it('shows amount, reference, expiry countdown and two form buttons, with no external requests', async () => {
    sandbox = createTestSandbox();
    const p = await sandbox.createPayment({ reference: 'hold_<script>' });
    const res = await page(`/pay/${p.id}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    const csp = res.headers.get('content-security-policy')!;
    expect(csp).toContain("default-src 'none'");
    const body = await res.text();
    expect(body).toContain('<meta name="viewport"');
    expect(body).toContain('€24.00');
    expect(body).toContain('hold_&lt;script&gt;');
    expect(body).not.toContain('hold_<script>');
    expect(body).toContain(`<form method="post" action="/pay/${p.id}/approve">`);
    expect(body).toContain(`<form method="post" action="/pay/${p.id}/decline">`);
    expect(body).toMatch(/<time id="countdown" datetime="[^"]+" data-remaining-ms="480000">8:00<\/time>/);
    const nonce = /script-src 'nonce-([^']+)'/.exec(csp)![1]!;
    expect(body).toContain(`<script nonce="${nonce}">`);
    // Nothing is loaded from anywhere: no src attributes, and the one href is the hidden way back
    // to the shop that the countdown reveals at zero (a link, not a load).
    expect(body).not.toMatch(/\ssrc=/);
    expect(body.match(/\shref=/g)).toHaveLength(1);
    expect(body).toMatch(/<a id="back-to-shop" class="button" href="[^"]+status=failed" hidden>/);
  });

  it('shows what is being bought, line by line, and no internal ids, when the merchant describes it', async () => {
    sandbox = createTestSandbox();
    const description = 'The Long <Premiere>\nWed 2 Dec 2026, 19:30 UTC\nOdeon, Lyon · Hall 1\nSeats D5, D6';
    const p = await sandbox.createPayment({
      reference: 'f3a1c2d4-0000-4000-8000-000000000001',
      metadata: { description, showtimeId: '42' },
    });
    const body = await (await page(`/pay/${p.id}`)).text();
    expect(body).toContain(
      '<dt>For</dt><dd class="purchase"><strong>The Long &lt;Premiere&gt;</strong><br>Wed 2 Dec 2026, 19:30 UTC<br>Odeon, Lyon · Hall 1<br>Seats D5, D6</dd>',
    );
    expect(body).not.toContain('f3a1c2d4');
    expect(body).not.toContain(`>${p.id}<`); // only in the forms' addresses
    expect(body).not.toMatch(/\ssrc=/);
    await page(`/pay/${p.id}/decline`, 'POST');
    expect(await (await page(`/pay/${p.id}`)).text()).toContain('for The Long &lt;Premiere&gt;.');
  });

  it('approves: 303 to the return URL with paymentId and status, then shows the outcome', async () => {
    sandbox = createTestSandbox();
    const p = await sandbox.createPayment();
    const res = await page(`/pay/${p.id}/approve`, 'POST');
    expect(res.status).toBe(303);
    const location = new URL(res.headers.get('location')!);
    expect(location.origin + location.pathname).toBe('https://shop.test/checkout/return');
    expect(Object.fromEntries(location.searchParams)).toEqual({
      hold: 'hold_abc',
      paymentId: p.id,
      status: 'succeeded',
    });
    // A double submit lands on the same place; the other button now shows what happened.
    expect((await page(`/pay/${p.id}/approve`, 'POST')).status).toBe(303);
    const decline = await page(`/pay/${p.id}/decline`, 'POST');
    expect(decline.status).toBe(409);
    expect(await decline.text()).toContain('This payment was approved.');
    expect(await (await page(`/pay/${p.id}`)).text()).toContain('Payment succeeded');
    await sandbox.dispatcher.idle();
    expect(sandbox.recorder.events().map((e) => e.type)).toEqual(['payment.succeeded']);
  });

  it('declines: 303 with status=failed', async () => {
    sandbox = createTestSandbox();
    const p = await sandbox.createPayment();
    const res = await page(`/pay/${p.id}/decline`, 'POST');
    expect(res.status).toBe(303);
    expect(new URL(res.headers.get('location')!).searchParams.get('status')).toBe('failed');
  });

  it('says an expired session expired, and refuses to pay it', async () => {
    sandbox = createTestSandbox();
    const p = await sandbox.createPayment();
    sandbox.clock.advance(8 * 60_000 + 1);
    const res = await page(`/pay/${p.id}`);
    expect(res.status).toBe(200);
    const body = await res.text();
    expect(body).toContain('This payment session has expired');
    expect(body).not.toContain('<form');
    expect(body).toContain('status=failed');
    const approve = await page(`/pay/${p.id}/approve`, 'POST');
    expect(approve.status).toBe(410);
    expect(((await (await sandbox.call('GET', `/v1/payments/${p.id}`)).json()) as { status: string }).status).toBe(
      'expired',
    );
  });

  it('answers an unknown payment with an HTML 404', async () => {
    sandbox = createTestSandbox();
    const res = await page('/pay/pay_nope');
    expect(res.status).toBe(404);
    expect(await res.text()).toContain('Payment not found');
    expect((await page('/pay/pay_nope/approve', 'POST')).status).toBe(404);
  });
});

describe('formatAmount', () => {
  it("uses the currency's own decimals", () => {
    expect(formatAmount(2400, 'EUR')).toBe('€24.00');
    expect(formatAmount(2400, 'JPY')).toBe('¥2,400');
    expect(formatAmount(1234, 'KWD')).toMatch(/1\.234/);
  });
});
